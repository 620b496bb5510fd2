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
  // Not an async function: a serial writer's uncontended section costs one `then`, no await chain
  // (the lock runs once per write, so its promises show in every write's cost).
  const lock = <T>(section: () => Promise<T>): Promise<T> => {
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = { busy: false, waiting: [] }));
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
      leave(queue);
      return Promise.reject(err);
    }
    return Promise.resolve(running).then(
      (value) => {
        leave(queue);
        return value;
      },
      (err: unknown) => {
        leave(queue);
        throw err;
      },
    );
  };
  const leave = (queue: Queue): void => {
    const next = queue.waiting.shift();
    if (next) next();
    else {
      queue.busy = false;
      // the last section out removes the queue, so a closed store leaves nothing behind
      if (queues.get(key) === queue) queues.delete(key);
    }
  };
  return Object.assign(lock, { busy: () => queues.get(key)?.busy === true });
}
