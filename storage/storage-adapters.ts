import type { AdapterName, PouchPlugin, StorageOptions } from './options.js';
import { attachDocumentCache } from './document-cache.js';
import { allowDirectWrites } from './direct-write.js';
import { INDEXEDDB_WRITE_CHUNK } from './write-chunks.js';

/**
 * The storage adapters this platform has, each loaded on first use. This file is Node's list;
 * the browser bundle (scripts/build-browser.mjs) swaps in storage-adapters.browser.ts, so it
 * never holds leveldb, memdown or node:fs, and a Node process never loads the IndexedDB adapter
 * unless a stack asks for it.
 */
export interface AdapterLoader {
  load(): Promise<{ default: PouchPlugin }>;
  /** runs before the store is opened (leveldb: creates the data folder) */
  prepare?(options: StorageOptions): Promise<void>;
  /** PouchDB's name of the adapter the plugin adds, when it is not docstack's */
  pouchAdapter?: string;
  /**
   * The build carries this adapter patched (the browser files' pouchdb-adapter-indexeddb): a
   * plugin handed in for it is not registered, as it would replace the patched adapter — for
   * every stack of the page, PouchDB keeping one adapter per name — with the published one.
   */
  patched?: true;
  /** documents per bulkDocs call of a large write (storage/write-chunks.ts; default STORAGE_WRITE_CHUNK) */
  writeChunk?: number;
  /** runs once the store is open (leveldb and memory: their document cache and direct writes, levelCoreOpened) */
  opened?(db: object, options: StorageOptions): void;
}

/** A leveldb or memory store, open: its document cache (storage/document-cache.ts) and direct writes (storage/direct-write.ts). */
function levelCoreOpened(db: object, options: StorageOptions): void {
  attachDocumentCache(db, options);
  allowDirectWrites(db);
}

const indexeddb: AdapterLoader = { load: () => import('pouchdb-adapter-indexeddb'), pouchAdapter: 'indexeddb', writeChunk: INDEXEDDB_WRITE_CHUNK };

export const adapterLoaders: Record<AdapterName, AdapterLoader> = {
  leveldb: {
    load: () => import('pouchdb-adapter-leveldb'),
    prepare: async (options) => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(options.dataDir ?? './data', { recursive: true });
    },
    opened: levelCoreOpened,
  },
  memory: { load: () => import('pouchdb-adapter-memory'), opened: levelCoreOpened },
  // IndexedDB (a Node process has none of its own): the browser's adapters by the same names, as
  // published — the browser bundles carry pouchdb-adapter-indexeddb patched for tabs, a full quota
  // and `_local` documents (scripts/patch-indexeddb-adapter.mjs; docs/browser.md#storage-indexeddb)
  indexeddb,
  'indexeddb-next': indexeddb,
  'indexeddb-idb': { load: () => import('pouchdb-adapter-idb'), pouchAdapter: 'idb' },
};
