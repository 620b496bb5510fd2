import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { AdapterName } from './options.js';
import type { AdapterLoader } from './storage-adapters.js';

/** The browser bundle's adapters: IndexedDB only (leveldb and memory stay out of the bundle). */
const notInBrowser = (adapter: string, instead = 'use adapter "indexeddb"'): AdapterLoader => ({
  load: () => Promise.reject(KERNEL_ERRORS.storageUnavailable(`The ${adapter} adapter is not part of the browser build; ${instead}.`, { details: { adapter } })),
});

export const adapterLoaders: Record<AdapterName, AdapterLoader> = {
  leveldb: notInBrowser('leveldb'),
  memory: notInBrowser('memory'),
  // IndexedDB through pouchdb-adapter-idb (PouchDB's adapter name "idb"): the newer
  // pouchdb-adapter-indexeddb keeps the update sequence per connection, so two tabs writing at
  // once collide on it and abort, and it reports a full quota as a bare "transaction was aborted"
  indexeddb: { load: () => import('pouchdb-adapter-idb'), pouchAdapter: 'idb' },
  // the other IndexedDB adapter, selectable (its trade-offs: docs/browser.md#storage-indexeddb).
  // Not in the bundle (9 kB gzipped, over both bundles' budgets): the app imports it and hands
  // it in, createStack({ adapter: 'indexeddb-next', adapterPlugin }); without it, refused
  'indexeddb-next': { ...notInBrowser('indexeddb-next', 'hand in pouchdb-adapter-indexeddb (adapterPlugin)'), pouchAdapter: 'indexeddb' },
};
