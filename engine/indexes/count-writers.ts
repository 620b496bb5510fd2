/**
 * Which writers of a store's class counters are alive. Each process (each browser tab) that keeps
 * counts of a store in memory writes under a random writer id, and lists that id in a class's
 * counter document while it holds changes of that class not yet persisted (the "dirty" list). A
 * listed writer that is gone died with those changes: the class must be counted again. A live
 * one has them in memory and will persist them: counting again now would count them twice.
 *
 * Where the platform has the Web Locks API (browsers: one lock manager per origin, shared by its
 * tabs) a writer holds a lock named after its id for as long as it lives, so another tab sees
 * whether it is alive. Without it (Node 20) only this process's writers are alive: a Node store is
 * opened by one process at a time (leveldb locks its directory; a memory store lives in the process).
 */

const PREFIX = 'docstack:count-writer:';

/** The Web Locks API's part used here (the DOM lib's LockManager, when present). */
type Locks = Pick<LockManager, 'request' | 'query'>;

const locksOf = (): Locks | undefined => (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks;

/** A new writer id (unique enough: two live writers of one store never share one). */
export function newWriterId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Holds the writer's lock while it lives: `held` resolves once it is granted, `release` ends it. */
export function holdWriter(id: string): { held: Promise<void>; release: () => void } {
  const locks = locksOf();
  if (!locks) return { held: Promise.resolve(), release: () => undefined };
  let release: () => void = () => undefined;
  const gone = new Promise<void>((resolve) => (release = resolve));
  const held = new Promise<void>((granted) => {
    locks.request(`${PREFIX}${id}`, () => {
      granted();
      return gone;
    }).catch(() => granted()); // no lock (an opaque origin): the writer then looks gone to others, as without the API
  });
  return { held, release };
}

/** The writer ids other processes hold alive, or null when the platform cannot tell (none are). */
export async function liveWriters(): Promise<Set<string> | null> {
  const locks = locksOf();
  if (!locks) return null;
  const { held = [] } = await locks.query();
  return new Set(held.map((lock) => lock.name ?? '').filter((name) => name.startsWith(PREFIX)).map((name) => name.slice(PREFIX.length)));
}
