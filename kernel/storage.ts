import PouchDB from 'pouchdb-core';
import { DocstackError } from './errors.js';

export type AdapterName = 'leveldb' | 'memory';
export type Database = PouchDB.Database<Record<string, unknown>>;

// pouchdb-core keeps one plugin registry per module instance (PouchDB.defaults() subclasses
// share it, and their instances miss static plugin members such as replicate), so docstack
// registers its adapters and plugins on pouchdb-core's PouchDB itself.
const DocstackPouch = PouchDB;

// Adapters load on first use: a browser bundle that never asks for leveldb never pulls in
// its native binding.
const adapterLoaders: Record<AdapterName, () => Promise<{ default: PouchDB.Plugin }>> = {
  leveldb: () => import('pouchdb-adapter-leveldb'),
  memory: () => import('pouchdb-adapter-memory'),
};
const loadedAdapters = new Map<AdapterName, Promise<void>>();

function loadAdapter(name: AdapterName): Promise<void> {
  let loading = loadedAdapters.get(name);
  if (!loading) {
    loading = adapterLoaders[name]().then((mod) => {
      DocstackPouch.plugin(mod.default);
    });
    loadedAdapters.set(name, loading);
  }
  return loading;
}

export interface StorageOptions {
  name: string;
  adapter: AdapterName;
  /** leveldb only: the folder that holds the database folder (default ./data). */
  dataDir?: string;
}

/** Where a leveldb stack keeps its files: `<dataDir>/<name>`. */
export function storageLocation(options: StorageOptions): string {
  if (options.adapter === 'memory') return options.name;
  const dir = (options.dataDir ?? './data').replace(/[\\/]+$/, '');
  return `${dir}/${options.name}`;
}

function checkAdapter(options: StorageOptions): void {
  if (!Object.hasOwn(adapterLoaders, options.adapter)) {
    throw new DocstackError('DS_STORAGE_ADAPTER_UNKNOWN', `Unknown storage adapter "${String(options.adapter)}"; use "leveldb" or "memory".`, {
      details: { adapter: options.adapter },
    });
  }
}

/** Deletes a store for good (the node's reset): close its stack first. */
export async function destroyStore(options: StorageOptions): Promise<void> {
  checkAdapter(options);
  await loadAdapter(options.adapter);
  await new DocstackPouch(storageLocation(options), { adapter: options.adapter }).destroy();
}

export async function openDatabase(options: StorageOptions): Promise<Database> {
  checkAdapter(options);
  await loadAdapter(options.adapter);
  if (options.adapter === 'leveldb') {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(options.dataDir ?? './data', { recursive: true });
  }
  const location = storageLocation(options);
  const db = new DocstackPouch<Record<string, unknown>>(location, { adapter: options.adapter });
  try {
    await db.info(); // surfaces open errors (locked folder, bad path) here, not on the first write
  } catch (err) {
    const message = String((err as Error)?.message ?? err);
    if (/lock/i.test(message)) {
      throw new DocstackError('DS_STORAGE_LOCKED', `The store ${JSON.stringify(location)} is in use by another process (a running node?); stop it first.`, {
        details: { location },
        cause: err,
      });
    }
    throw err;
  }
  return db;
}
