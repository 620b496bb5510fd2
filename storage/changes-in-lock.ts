import type { Database } from './database.js';
import { writeLockFor } from './write-lock.js';

/*
 * PouchDB's leveldb-core (the memory and leveldb adapters) walks a `_changes` page from an
 * iterator snapshot but reads each row's document metadata live: a row whose document a write
 * changes during the read is skipped as superseded while its new row lies past the snapshot. The
 * page then answers "caught up" without the document and a one-shot replication ends missing it —
 * seen as a pull that ran beside the push of a conflicting revision (test/server/replication.test.ts,
 * about one run in twenty under load; test/kernel/changes-mid-write.test.ts fails every time without
 * this). Every engine write takes the store's write lock (storage/write-lock.ts), so a read taken
 * inside it sees no write land mid-read. A read waits for a write in progress, never the reverse
 * for long: a page is bounded (the node's `limit`, the replicator's batch size).
 *
 * The IndexedDB adapters read a page inside one transaction and need none of this: the browser
 * build keeps the plain reads (globalThis.docstackBrowserBuild), so its files carry none of it.
 */

/** `read` run inside the store's write lock. */
export function insideWriteLock<A, T>(db: Database, read: (options: A) => Promise<T>): (options: A) => Promise<T> {
  const lock = writeLockFor(db);
  return (options) => lock(() => read(options));
}

type ChangesCall = PouchDB.Core.Changes<{}>;
type Listener = (...args: unknown[]) => void;

/**
 * `db.changes` as PouchDB's replicator calls it on a source: a one-shot read runs inside the
 * write lock, a live feed as it is (it reads again on every write it is told of, so a row skipped
 * mid-read comes back with the next). The one-shot answer has what the replicator uses of a
 * PouchDB changes call: `on` (listeners handed to the read once it starts), `then`/`catch`, `cancel`.
 */
export function replicatorChanges(db: Database): (options: PouchDB.Core.ChangesOptions) => unknown {
  const lock = writeLockFor(db);
  return (options) => {
    if (options.live || (options as { continuous?: boolean }).continuous) return db.changes(options);
    let inner: ChangesCall | undefined;
    let cancelled = false;
    const listeners: Array<[string, Listener]> = [];
    const done = lock(() => {
      // cancelled while it waited: PouchDB's own answer for a cancelled read
      if (cancelled) return Promise.resolve({ status: 'cancelled' });
      inner = db.changes(options);
      for (const [event, listener] of listeners) inner.on(event as 'change', listener);
      return inner;
    });
    const call = {
      on(event: string, listener: Listener) {
        if (inner) inner.on(event as 'change', listener);
        else listeners.push([event, listener]);
        return call;
      },
      then: <A, B>(ok?: (value: unknown) => A, fail?: (err: unknown) => B) => done.then(ok, fail),
      catch: <B>(fail: (err: unknown) => B) => done.catch(fail),
      cancel() {
        cancelled = true;
        inner?.cancel();
      },
    };
    return call;
  };
}
