import type { Doc } from '../contracts/model.js';

/** How a read by id answers: the stored document, or null when it is missing or deleted. */
export type StoredDone = (err: unknown, doc: Doc | null) => void;

/**
 * A store's cache of documents by id, asked by storage/direct-get.ts before the adapter's read.
 * Node's leveldb and memory stores have one (storage/document-cache.ts, attached at open by
 * storage-adapters.ts); the browser bundles never load that module, so this file is all they
 * carry of it.
 */
export interface DocumentCache {
  /** answers `id` from the cache when the store confirms it, else through `readStore` */
  read(id: string, done: StoredDone, readStore: (id: string, done: StoredDone) => void): void;
  /** forgets every document (the store closes: a closed stack kept referenced keeps no copy alive) */
  clear(): void;
}

/** The cache of each opened store (a PouchDB object), if it has one. */
export const documentCaches = new WeakMap<object, DocumentCache>();
