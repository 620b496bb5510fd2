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
};

export { storeKeyOf };

export function writeLockFor(db: Database): WriteLock {
  const key = storeKeyOf(db);
  const lock = async <T>(section: () => Promise<T>): Promise<T> => {
    const queue = queues.get(key) ?? { busy: false, waiting: [] };
    queues.set(key, queue);
    // uncontended (a serial writer): no promise chain at all; else wait for the turn handed over
    if (queue.busy) await new Promise<void>((resume) => queue.waiting.push(resume));
    queue.busy = true;
    try {
      return await section();
    } finally {
      const next = queue.waiting.shift();
      if (next) next();
      else {
        queue.busy = false;
        // the last section out removes the queue, so a closed store leaves nothing behind
        if (queues.get(key) === queue) queues.delete(key);
      }
    }
  };
  return Object.assign(lock, { busy: () => queues.get(key)?.busy === true });
}
