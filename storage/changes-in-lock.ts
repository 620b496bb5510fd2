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
 * inside it sees no write land mid-read. A read waits for a write in progress, and a write for at
 * most one page of a read (LOCKED_PAGE rows; the replicator asks for 100 at a time).
 *
 * The IndexedDB adapters read a page inside one transaction and need none of this: the browser
 * build keeps the plain reads (globalThis.docstackBrowserBuild), so its files carry none of it.
 */

/** Rows a locked read takes at most before it lets a waiting write in (see changesInLock). */
export const LOCKED_PAGE = 500;

type PageOptions = { since: number | string; limit?: number; descending?: boolean };
type Page = { results: unknown[]; last_seq: number | string };

/**
 * A one-shot changes read inside the store's write lock, a page of LOCKED_PAGE rows at a time:
 * a read with no limit (or a large one) would otherwise hold every writer back for as long as it
 * walks the whole store. Between pages a write may land; a row it supersedes in a later page is
 * skipped there, but the new row is past it and inside the next page's snapshot, so the answer
 * still lists the document. Descending reads (never the replicator's) are one locked call.
 */
export function changesInLock<O extends PageOptions, R extends Page>(db: Database, read: (options: O) => Promise<R>): (options: O) => Promise<R> {
  const lock = writeLockFor(db);
  return async (options) => {
    const limit = options.limit;
    if (options.descending || (limit !== undefined && limit <= LOCKED_PAGE)) return lock(() => read(options));
    let answer: R | undefined;
    let since = options.since;
    for (;;) {
      const want = limit === undefined ? LOCKED_PAGE : Math.min(LOCKED_PAGE, limit - (answer?.results.length ?? 0));
      const page = await lock(() => read({ ...options, since, limit: want }));
      if (answer) {
        answer.results.push(...page.results);
        answer.last_seq = page.last_seq;
      } else answer = page;
      // fewer rows than asked: the read reached the end of the feed
      if (page.results.length < want || (limit !== undefined && answer.results.length >= limit)) return answer;
      since = page.last_seq;
    }
  };
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
