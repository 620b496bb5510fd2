/** Which store a stack opens: read by the database module and each platform's adapter list. */
/**
 * `indexeddb` is the browser's default IndexedDB adapter (pouchdb-adapter-idb); `indexeddb-next`
 * selects pouchdb-adapter-indexeddb instead (docs/browser.md#storage-indexeddb says when).
 */
export type AdapterName = 'leveldb' | 'memory' | 'indexeddb' | 'indexeddb-next';

export interface StorageOptions {
  name: string;
  adapter: AdapterName;
  /** leveldb only: the folder that holds the database folder (default ./data). */
  dataDir?: string;
  /**
   * The PouchDB adapter plugin for `adapter`, handed in instead of loaded by name: the browser
   * bundle does not hold pouchdb-adapter-indexeddb, so an app selecting `indexeddb-next` imports
   * it and passes it here (`import adapterPlugin from 'pouchdb-adapter-indexeddb'`).
   */
  adapterPlugin?: PouchPlugin;
}

/**
 * A PouchDB plugin module (an adapter's default export), handed to PouchDB.plugin as it is.
 * Not @types/pouchdb-core's PouchDB.Plugin: the package's .d.ts would then need those types.
 */
export type PouchPlugin = object;
