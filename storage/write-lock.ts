import { storeKeyOf, type Database } from './database.js';

/**
 * One queue per store for the engine's read-then-write sections (primary-key entries and class
 * counters are read, then written in the same bulkDocs call as the documents). PouchDB already
 * runs one bulkDocs at a time per store, so queueing costs no throughput; it keeps two writers
 * of this process (two calls, or two stacks opened on one store) from both reading a key as
 * free, or a counter at the same revision, before either writes. Keyed by adapter and store
 * name, not by PouchDB instance: memory stores of one name are shared within a process.
 */
interface Queue {
  busy: boolean;
  /** sections waiting their turn, each resumed by the one before it */
  waiting: (() => void)[];
}

const queues = new Map<string, Queue>();

export type WriteLock = (<T>(section: () => Promise<T>) => Promise<T>) & {
  /** Is a section of this store running now (a write arriving would wait)? */
  busy(): boolean;
  /**
   * Takes the lock now if it is free (true: the caller holds it until `release`), else false —
   * for a section that gives the lock back in its own last step, without the `then` a section's
   * promise costs (kernel/unit-of-work.ts storeUnitThen). Node only: the browser files' lock has neither.
   */
  hold?(): boolean;
  /** Gives back a lock `hold` took: the next section waiting runs. */
  release?(): void;
};

export { storeKeyOf };

export function writeLockFor(db: Database): WriteLock {
  const key = storeKeyOf(db);
  // Not an async function: a serial writer's uncontended section costs one `then`, no await chain
  // (the lock runs once per write, so its promises show in every write's cost).
  /** the store's queue, made when none is there (the last section out removes it) */
  const queueOf = (): Queue => {
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = { busy: false, waiting: [] }));
    return queue;
  };
  const lock = <T>(section: () => Promise<T>): Promise<T> => {
    const queue = queueOf();
    if (!queue.busy) return enter(queue, section);
    // wait for the turn the section before hands over (busy stays set across the hand-over)
    const waitingOn = queue;
    return new Promise<void>((resume) => waitingOn.waiting.push(resume)).then(() => enter(waitingOn, section));
  };
  const enter = <T>(queue: Queue, section: () => Promise<T>): Promise<T> => {
    queue.busy = true;
    let running: Promise<T>;
    try {
      running = section();
    } catch (err) {
      leave();
      return Promise.reject(err);
    }
    return Promise.resolve(running).then(left as (value: T) => T, leftFailed);
  };
  // made once per lock, not per section: the queue a section leaves is the busy one of its store
  // (only the last section out removes it, and nothing replaces a busy queue)
  const leave = (): void => {
    const queue = queues.get(key)!;
    const next = queue.waiting.shift();
    if (next) next();
    else {
      queue.busy = false;
      // the last section out removes the queue, so a closed store leaves nothing behind
      queues.delete(key);
    }
  };
  const left = (value: unknown): unknown => {
    leave();
    return value;
  };
  const leftFailed = (err: unknown): never => {
    leave();
    throw err;
  };
  const busy = (): boolean => queues.get(key)?.busy === true;
  if (!globalThis.docstackBrowserBuild) {
    const hold = (): boolean => {
      const queue = queueOf();
      if (queue.busy) return false;
      queue.busy = true;
      return true;
    };
    return Object.assign(lock, { busy, hold, release: leave });
  }
  return Object.assign(lock, { busy });
}
