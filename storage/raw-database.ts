import type { Database } from './database.js';

// The PouchDB store under each stack's storage facade. Kernel-private: plugins and the server
// never import this module (test/package/entry-points.test.ts checks), index.ts does not
// export it. Tests reach the raw store through test/helpers/stack.ts to forge stored states.
const databases = new WeakMap<object, Database>();

/** Called once by the storage facade it belongs to. */
export function bindRawDatabase(storage: object, db: Database): void {
  databases.set(storage, db);
}

/** The raw store under a storage facade, if it is one this kernel bound (engine reads by id: storage/direct-get.ts). */
export function boundDatabase(storage: object): Database | undefined {
  return databases.get(storage);
}

/**
 * The raw PouchDB store of a stack — for tests (forging a stored state, reading `_local`
 * documents, replicating two stores directly) and benchmarks only. Everything else reads and
 * writes through `stack.storage` and the document pipeline.
 */
export function rawDatabase(stack: { readonly storage: object }): Database {
  const db = boundDatabase(stack.storage);
  if (!db) throw new Error('rawDatabase: not a stack opened by this kernel.');
  return db;
}
