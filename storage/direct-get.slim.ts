import type { Doc } from '../contracts/model.js';
import type { Database } from './database.js';

/**
 * The slim browser bundle's stand-in for ./direct-get.ts (scripts/build-browser.mjs swaps it in
 * for docstack-slim.js only): reads by id through PouchDB's public `get` and the storage facade —
 * the same answers, a promise or two more per read, in a file whose budget is never raised.
 */
export function readStored<T = Doc>(db: Database, id: string): Promise<T | null> {
  return (db.get(id) as Promise<T>).catch(nullWhenMissing);
}

export function nullWhenMissing(err: unknown): null {
  if ((err as { status?: number } | null)?.status === 404) return null;
  throw err;
}

export function getStoredVia(storage: { get(id: string): Promise<object | null> }, id: string, done: (err: unknown, doc: Doc | null) => void): void {
  storage.get(id).then(
    (doc) => done(null, doc as Doc | null),
    (err: unknown) => done(err, null),
  );
}
