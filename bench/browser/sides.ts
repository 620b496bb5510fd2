/**
 * The sides the browser bench times in one page (bundled into bench/browser/page.ts): docstack on
 * either IndexedDB adapter, raw PouchDB on the same adapters, Dexie, and RxDB on Dexie storage.
 * Every side stores the same documents (bench/pipeline's Item: eight attributes, `code` the
 * primary key) and answers the same three calls: a bulk insert, one insert, one lookup by `code`.
 */
import { Class, createStack, browser, destroyStore, type AdapterName, type BrowserStack } from 'docstack/browser';
import PouchDB from 'pouchdb-core';
import idbAdapter from 'pouchdb-adapter-idb';
import indexeddbAdapter from 'pouchdb-adapter-indexeddb';
import Dexie from 'dexie';
import { createRxDatabase } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { CATEGORIES, categoryId, ITEM_SCHEMA, STATUSES } from '../items.js';

PouchDB.plugin(idbAdapter);
PouchDB.plugin(indexeddbAdapter);

export type Item = Record<string, unknown> & { code: string };

export interface Side {
  bulk(items: Item[]): Promise<unknown>;
  insert(item: Item): Promise<unknown>;
  lookup(code: string): Promise<unknown>;
  destroy(): Promise<unknown>;
}

/** The same as a JSON schema for RxDB (validated by its ajv wrapper, as docstack validates). */
const RX_SCHEMA = {
  version: 0,
  primaryKey: 'code',
  type: 'object',
  properties: {
    code: { type: 'string', maxLength: 24 },
    label: { type: 'string', maxLength: 80 },
    quantity: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    price: { type: 'number', minimum: 0 },
    inStock: { type: 'boolean' },
    releasedOn: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    status: { type: 'string', enum: [...STATUSES] },
    category: { type: 'string', maxLength: 40 },
  },
  required: ['code', 'label', 'quantity', 'price', 'inStock', 'releasedOn', 'status', 'category'],
} as const;

/** docstack from the real bundle, the browser preset, on `adapter`. */
async function docstackSide(name: string, adapter: AdapterName): Promise<Side> {
  // indexeddb-idb: pouchdb-adapter-idb is not in the bundle, the page hands it in
  const adapterPlugin = adapter === 'indexeddb-idb' ? idbAdapter : undefined;
  const stack = (await createStack({ name, adapter, adapterPlugin, plugins: browser })) as unknown as BrowserStack;
  await Class.create(stack, 'Category', 'class', '', { name: { type: 'string', mandatory: true } });
  const items = await Class.create(stack, 'Item', 'class', '', ITEM_SCHEMA as never);
  await stack.createDocs(Array.from({ length: CATEGORIES }, (_, i) => ({ '~class': 'Category', _id: categoryId(i + 1), name: `Category ${i + 1}` })));
  return {
    bulk: (all) => stack.createDocs(all.map((a) => ({ '~class': 'Item', ...a }))),
    insert: (a) => stack.createDoc({ '~class': 'Item', ...a }),
    lookup: async (code) => {
      if (!(await items.getByPrimaryKeys({ code }))) throw new Error(`docstack missed ${code}`);
    },
    destroy: async () => {
      await stack.close();
      await destroyStore({ name, adapter, adapterPlugin });
    },
  };
}

/**
 * Raw PouchDB (pouchdb-core + the adapter) storing the engine's shape under `Item-<code>`: bulk in
 * calls of `chunk` (250, the engine's call on leveldb and memory, or everything in one call, as
 * the engine writes up to 10,000 on pouchdb-adapter-indexeddb), a put per insert, a get.
 */
async function pouchSide(name: string, adapter: 'idb' | 'indexeddb', chunk: number): Promise<Side> {
  const db = new PouchDB<Record<string, unknown>>(name, { adapter });
  await db.info();
  const now = new Date().toISOString();
  await db.bulkDocs(Array.from({ length: CATEGORIES }, (_, i) => ({ _id: categoryId(i + 1), '~class': 'Category', name: `Category ${i + 1}`, '~createTimestamp': now, active: true })));
  const shape = (a: Item) => ({ _id: `Item-${a.code}`, '~class': 'Item', ...a, '~createTimestamp': now, active: true });
  return {
    bulk: async (all) => {
      for (let i = 0; i < all.length; i += chunk) await db.bulkDocs(all.slice(i, i + chunk).map(shape));
    },
    insert: (a) => db.put(shape(a)),
    lookup: (code) => db.get(`Item-${code}`),
    destroy: () => db.destroy(),
  };
}

/** Dexie: a table keyed by `code`, no validation (bulkAdd / add / get). */
async function dexieSide(name: string): Promise<Side> {
  const db = new Dexie(name);
  db.version(1).stores({ items: 'code' });
  await db.open();
  const items = db.table('items');
  return {
    bulk: (all) => items.bulkAdd(all),
    insert: (a) => items.add(a),
    lookup: async (code) => {
      if (!(await items.get(code))) throw new Error(`dexie missed ${code}`);
    },
    destroy: () => db.delete(),
  };
}

/** RxDB on its Dexie storage, documents validated by its ajv wrapper (bulkInsert / insert / findOne). */
async function rxdbSide(name: string): Promise<Side> {
  const db = await createRxDatabase({ name: name.toLowerCase().replace(/[^a-z0-9]/g, ''), storage: wrappedValidateAjvStorage({ storage: getRxStorageDexie() }) });
  const { items } = await db.addCollections({ items: { schema: RX_SCHEMA as never } });
  return {
    bulk: async (all) => {
      const result = await items.bulkInsert(all);
      if (result.error.length > 0) throw new Error(`rxdb refused ${result.error.length} documents: ${JSON.stringify(result.error[0]).slice(0, 300)}`);
    },
    insert: (a) => items.insert(a),
    lookup: async (code) => {
      if (!(await items.findOne(code).exec())) throw new Error(`rxdb missed ${code}`);
    },
    destroy: () => db.remove(),
  };
}

/** The sides by the name bench/browser/index.ts uses. */
export const SIDES: Record<string, (name: string) => Promise<Side>> = {
  docstack: (name) => docstackSide(name, 'indexeddb'),
  'docstack-idb': (name) => docstackSide(name, 'indexeddb-idb'),
  pouchdb: (name) => pouchSide(name, 'indexeddb', 250),
  'pouchdb-one-call': (name) => pouchSide(name, 'indexeddb', Number.POSITIVE_INFINITY),
  'pouchdb-idb': (name) => pouchSide(name, 'idb', 250),
  dexie: dexieSide,
  rxdb: rxdbSide,
};
