import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { AdapterName } from './options.js';
import type { AdapterLoader } from './storage-adapters.js';
import { INDEXEDDB_WRITE_CHUNK } from './write-chunks.js';

/** The browser bundle's adapters: IndexedDB only (leveldb and memory stay out of the bundle). */
const notInBrowser = (adapter: string, instead = 'use adapter "indexeddb"'): AdapterLoader => ({
  load: () => Promise.reject(KERNEL_ERRORS.storageUnavailable(`The ${adapter} adapter is not part of the browser build; ${instead}.`, { details: { adapter } })),
});

// IndexedDB through pouchdb-adapter-indexeddb, patched at build time so two tabs keep one update
// sequence, a full quota is named and `_local` documents are written as the other adapters write
// them (scripts/patch-indexeddb-adapter.mjs). Measured under the engine it is faster than
// pouchdb-adapter-idb for bulk inserts and lookups, about even for serial ones
// (docs/benchmarks.md#benchbrowser).
const patchedIndexeddb: AdapterLoader = { load: () => import('pouchdb-adapter-indexeddb'), pouchAdapter: 'indexeddb', patched: true, writeChunk: INDEXEDDB_WRITE_CHUNK };

export const adapterLoaders: Record<AdapterName, AdapterLoader> = {
  leveldb: notInBrowser('leveldb'),
  memory: notInBrowser('memory'),
  indexeddb: patchedIndexeddb,
  // its name while it was not the default
  'indexeddb-next': patchedIndexeddb,
  // docstack 0.1's default, for stores written with it (the other adapter refuses their layout).
  // Not in the bundles: the app imports it and hands it in,
  // createStack({ adapter: 'indexeddb-idb', adapterPlugin }); without it, refused
  'indexeddb-idb': { ...notInBrowser('indexeddb-idb', 'hand in pouchdb-adapter-idb (adapterPlugin)'), pouchAdapter: 'idb' },
};
