import PouchDB from 'pouchdb-core';
import './pouchdb-public.js'; // PouchDB.* in this file's .d.ts, without @types/pouchdb-core
import { DocstackError, KERNEL_ERRORS } from '../contracts/errors.js';
import { documentCaches } from './document-caches.js';
import { writtenByIdbAdapter } from './indexeddb-layout.js';
import { adapterLoaders } from './storage-adapters.js';
import { STORAGE_WRITE_CHUNK } from './write-chunks.js';

import type { AdapterName, PouchPlugin, StorageOptions } from './options.js';

export type { AdapterName, StorageOptions };
export type Database = PouchDB.Database<Record<string, unknown>>;

// pouchdb-core keeps one plugin registry per module instance (PouchDB.defaults() subclasses
// share it, and their instances miss static plugin members such as replicate), so docstack
// registers its adapters and plugins on pouchdb-core's PouchDB itself.
const DocstackPouch = PouchDB;

// Adapters load on first use, from the platform's list (storage-adapters.ts; the browser bundle
// swaps in storage-adapters.browser.ts): a browser bundle never holds leveldb, a Node process
// never loads IndexedDB unless asked.
const loadedAdapters = new Map<AdapterName, Promise<void>>();
function loadAdapter(name: AdapterName, given?: PouchPlugin): Promise<void> {
  // handed in (options.adapterPlugin): registering it again only sets the same adapter again —
  // except over an adapter this build carries patched (docstack 0.1 apps handed in
  // pouchdb-adapter-indexeddb for `indexeddb-next`): the build's own is kept
  if (given && !adapterLoaders[name].patched) return Promise.resolve(void DocstackPouch.plugin(given as PouchDB.Plugin));
  let loading = loadedAdapters.get(name);
  if (!loading) {
    loading = adapterLoaders[name].load().then((mod) => {
      DocstackPouch.plugin(mod.default as PouchDB.Plugin);
    });
    loading.catch(() => loadedAdapters.delete(name));
    loadedAdapters.set(name, loading);
  }
  return loading;
}

/** PouchDB's adapter name (`db.adapter`) → documents per bulkDocs call of a large write (AdapterLoader.writeChunk). */
const writeChunks = new Map(Object.entries(adapterLoaders).map(([name, loader]) => [loader.pouchAdapter ?? name, loader.writeChunk ?? STORAGE_WRITE_CHUNK]));

/** How many documents one bulkDocs call of a large write on `db` carries (storage/write-chunks.ts). */
export function writeChunkOf(db: Database): number {
  return writeChunks.get((db as { adapter?: string }).adapter ?? '') ?? STORAGE_WRITE_CHUNK;
}

/** One key per store of this process (adapter and name: two PouchDB objects may share a store). */
export function storeKeyOf(db: Database): string {
  return `${(db as { adapter?: string }).adapter ?? ''}:${db.name}`;
}

/**
 * How many times each store was closed in this process. Two stacks opened on one store share it
 * (PouchDB keeps one adapter store per name), so the first to close ends it for the other, whose
 * reads would then never answer: a stack compares this count with the one at its open before
 * it writes anything on close.
 */
const closes = new Map<string, number>();

export function closesOf(db: Database): number {
  return closes.get(storeKeyOf(db)) ?? 0;
}

/** Closes the store (counted by closesOf). */
export async function closeDatabase(db: Database): Promise<void> {
  const key = storeKeyOf(db);
  closes.set(key, (closes.get(key) ?? 0) + 1);
  documentCaches.get(db)?.clear();
  await db.close();
}

/** Where a leveldb stack keeps its files: `<dataDir>/<name>`; memory and IndexedDB: the name. */
export function storageLocation(options: StorageOptions): string {
  if (options.adapter !== 'leveldb') return options.name;
  const dir = (options.dataDir ?? './data').replace(/[\\/]+$/, '');
  return `${dir}/${options.name}`;
}

/** indexeddb, indexeddb-next and indexeddb-idb: the IndexedDB adapters */
const isIndexedDB = (adapter: AdapterName): boolean => adapter.startsWith('indexeddb');

function checkAdapter(options: StorageOptions): void {
  if (!Object.hasOwn(adapterLoaders, options.adapter)) {
    throw KERNEL_ERRORS.storageAdapterUnknown(`Unknown storage adapter "${String(options.adapter)}"; use ${Object.keys(adapterLoaders).join(', ')}.`, {
      details: { adapter: options.adapter },
    });
  }
}

/** Deletes a store for good (the node's reset): close its stack first. */
export async function destroyStore(options: StorageOptions): Promise<void> {
  checkAdapter(options);
  await loadAdapter(options.adapter, options.adapterPlugin);
  await new DocstackPouch(storageLocation(options), { adapter: adapterLoaders[options.adapter].pouchAdapter ?? options.adapter }).destroy();
}

export async function openDatabase(options: StorageOptions): Promise<Database> {
  checkAdapter(options);
  const location = storageLocation(options);
  if (isIndexedDB(options.adapter) && typeof (globalThis as { indexedDB?: unknown }).indexedDB === 'undefined') {
    throw storageUnavailable(location, 'this environment has no IndexedDB (a private window, a sandboxed frame, or not a browser)');
  }
  await loadAdapter(options.adapter, options.adapterPlugin);
  await adapterLoaders[options.adapter].prepare?.(options);
  if (adapterLoaders[options.adapter].pouchAdapter === 'indexeddb' && (await writtenByIdbAdapter(location))) {
    throw storageUnavailable(location, 'it was written by pouchdb-adapter-idb (the default of docstack 0.1), whose layout this adapter does not read; open it with adapter "indexeddb-idb" and pouchdb-adapter-idb handed in (adapterPlugin)');
  }
  const db = new DocstackPouch<Record<string, unknown>>(location, { adapter: adapterLoaders[options.adapter].pouchAdapter ?? options.adapter });
  try {
    await db.info(); // surfaces open errors (locked folder, bad path, IndexedDB refused) here, not on the first write
  } catch (err) {
    const message = String((err as Error)?.message ?? err);
    if (isQuotaError(err)) throw quotaExceeded(location, err);
    if (isIndexedDB(options.adapter)) throw storageUnavailable(location, `IndexedDB refused to open it (${errorName(err)})`, err);
    if (/lock/i.test(message)) {
      throw KERNEL_ERRORS.storageLocked(`The store ${JSON.stringify(location)} is in use by another process (a running node?); stop it first.`, {
        details: { location },
        cause: err,
      });
    }
    throw err;
  }
  if (isIndexedDB(options.adapter)) translateWriteErrors(db, location);
  adapterLoaders[options.adapter].opened?.(db, options);
  return db;
}

type Callback = (err: unknown, result?: unknown) => void;
type WriteMethod = (request: unknown, options: unknown, callback: Callback) => void;

/**
 * A full origin quota aborts IndexedDB's write transaction: the caller gets DS_STORAGE_QUOTA
 * instead of PouchDB's bare error (idb_error "QuotaExceededError"). The adapter then closes its
 * connection, so the message says to open the stack again.
 */
function translateWriteErrors(db: Database, location: string): void {
  const target = db as unknown as Record<'_bulkDocs' | '_putLocal', WriteMethod>;
  for (const method of ['_bulkDocs', '_putLocal'] as const) {
    const inner = target[method];
    if (typeof inner !== 'function') continue;
    target[method] = function (this: unknown, request, options, callback) {
      inner.call(this, request, options, (err, result) => callback(err && isQuotaError(err) ? quotaExceeded(location, err) : err, result));
    };
  }
}

function errorName(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown; reason?: unknown } | null;
  return [e?.name, e?.message, e?.reason].filter((part) => typeof part === 'string' && part !== '').join(': ') || String(err);
}

function isQuotaError(err: unknown): boolean {
  return /quota/i.test(errorName(err));
}

function quotaExceeded(location: string, cause: unknown): DocstackError {
  return KERNEL_ERRORS.storageQuota(`The browser's storage quota for this site is full: this write to ${JSON.stringify(location)} was not stored. Free space (delete data or other stores), then close the stack and open it again.`, {
    details: { location },
    cause,
  });
}

function storageUnavailable(location: string, why: string, cause?: unknown): DocstackError {
  return KERNEL_ERRORS.storageUnavailable(`The store ${JSON.stringify(location)} cannot be opened: ${why}.`, {
    details: { location },
    ...(cause === undefined ? {} : { cause }),
  });
}
