/** Which store a stack opens: read by the database module and each platform's adapter list. */
/**
 * `indexeddb` is the browser's IndexedDB adapter, pouchdb-adapter-indexeddb (the bundles carry it
 * patched for tabs, a full quota and `_local` documents); `indexeddb-next`, its name before it
 * was the default, opens the same stores the same way; `indexeddb-idb` selects
 * pouchdb-adapter-idb, the default of docstack 0.1, for stores written with it
 * (docs/browser.md#storage-indexeddb).
 */
export type AdapterName = 'leveldb' | 'memory' | 'indexeddb' | 'indexeddb-next' | 'indexeddb-idb';

export interface StorageOptions {
  name: string;
  adapter: AdapterName;
  /** leveldb only: the folder that holds the database folder (default ./data). */
  dataDir?: string;
  /**
   * The PouchDB adapter plugin for `adapter`, handed in instead of loaded by name: the browser
   * bundle does not hold pouchdb-adapter-idb, so an app selecting `indexeddb-idb` imports it and
   * passes it here (`import adapterPlugin from 'pouchdb-adapter-idb'`). For `indexeddb` and
   * `indexeddb-next` the browser bundle keeps its own patched adapter (one handed in is not
   * registered: docs/browser.md#storage-indexeddb).
   */
  adapterPlugin?: PouchPlugin;
  /**
   * Node's leveldb and memory stores: the verified cache of documents by id that reads by id ask
   * first (storage/document-cache.ts; default 20,000 documents or 8 MB of JSON, whichever is
   * reached first). `false` (or a bound of 0) turns it off; anything else is refused at open
   * (DS_STACK_OPTIONS_INVALID). IndexedDB stores have none.
   */
  documentCache?: DocumentCacheOptions | false;
}

/** The bounds of a store's document cache (StorageOptions.documentCache); the oldest-used go first. */
export interface DocumentCacheOptions {
  /** most documents kept (default 20,000) */
  maxDocuments?: number;
  /** most bytes kept, counted as the documents' JSON text (default 8 MB) */
  maxBytes?: number;
}

/**
 * A PouchDB plugin module (an adapter's default export), handed to PouchDB.plugin as it is.
 * Not @types/pouchdb-core's PouchDB.Plugin: the package's .d.ts would then need those types.
 */
export type PouchPlugin = object;
