import type { Database } from './storage.js';

/**
 * One queue per store for the engine's read-then-write sections (primary-key entries and class
 * counters are read, then written in the same bulkDocs call as the documents). PouchDB already
 * runs one bulkDocs at a time per store, so queueing costs no throughput; it keeps two writers
 * of this process (two calls, or two stacks opened on one store) from both reading a key as
 * free, or a counter at the same revision, before either writes. Keyed by adapter and store
 * name, not by PouchDB instance: memory stores of one name are shared within a process.
 */
const queues = new Map<string, Promise<unknown>>();

export type WriteLock = <T>(section: () => Promise<T>) => Promise<T>;

/** One key per store of this process (adapter and name: two PouchDB objects may share a store). */
export function storeKeyOf(db: Database): string {
  return `${(db as { adapter?: string }).adapter ?? ''}:${db.name}`;
}

export function writeLockFor(db: Database): WriteLock {
  const key = storeKeyOf(db);
  return <T>(section: () => Promise<T>): Promise<T> => {
    const before = queues.get(key) ?? Promise.resolve();
    const run = before.then(section, section);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    // the last section out removes the queue, so a closed store leaves nothing behind
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  };
}
