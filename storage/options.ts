/** Which store a stack opens: read by the database module and each platform's adapter list. */
export type AdapterName = 'leveldb' | 'memory' | 'indexeddb';

export interface StorageOptions {
  name: string;
  adapter: AdapterName;
  /** leveldb only: the folder that holds the database folder (default ./data). */
  dataDir?: string;
}
