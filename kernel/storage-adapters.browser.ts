import { DocstackError } from './errors.js';
import type { AdapterLoader } from './storage-adapters.js';

/** The browser bundle's adapters: IndexedDB only (leveldb and memory stay out of the bundle). */
const notInBrowser = (adapter: string): AdapterLoader => ({
  load: () =>
    Promise.reject(
      new DocstackError('DS_STORAGE_UNAVAILABLE', `The ${adapter} adapter is not part of the browser build; use adapter "indexeddb".`, { details: { adapter } }),
    ),
});

export const adapterLoaders: Record<'leveldb' | 'memory' | 'indexeddb', AdapterLoader> = {
  leveldb: notInBrowser('leveldb'),
  memory: notInBrowser('memory'),
  indexeddb: { load: () => import('pouchdb-adapter-indexeddb') },
};
