/**
 * The browser bench's page script (bundled by test/browser/harness.ts with `docstack/browser`
 * importing the real bundle /docstack.js). The baseline is raw PouchDB — pouchdb-core with the
 * same IndexedDB adapter (pouchdb-adapter-idb) the engine uses — bundled into this script.
 * Node calls `docstackTest.run(step, args)`; each step returns milliseconds (performance.now).
 */
import { Class, createStack, browser, type BrowserStack } from 'docstack/browser';
import PouchDB from 'pouchdb-core';
import idbAdapter from 'pouchdb-adapter-idb';

PouchDB.plugin(idbAdapter);
type RawDb = PouchDB.Database<Record<string, unknown>>;

const CATEGORIES = 5;
const STATUSES = ['draft', 'active', 'retired'] as const;
const DAY_MS = 86_400_000;
const EPOCH_2000 = Date.UTC(2000, 0, 1);

/** The eight validated attributes of bench/pipeline's Item. */
const ITEM_SCHEMA = {
  code: { type: 'string', primaryKey: true, maxLength: 24 },
  label: { type: 'string', maxLength: 80 },
  quantity: { type: 'integer', min: 0, max: 1_000_000 },
  price: { type: 'decimal', precision: 2, min: 0 },
  inStock: { type: 'boolean' },
  releasedOn: { type: 'date', format: 'YYYY-MM-DD' },
  status: { type: 'enum', values: [...STATUSES] },
  category: { type: 'foreign_key', targetClass: 'Category', mandatory: true },
};

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const categoryId = (n: number) => `Category-${n}`;

function attributes(count: number, seed: number): Record<string, unknown>[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, n) => ({
    code: `ITEM-${String(n).padStart(7, '0')}`,
    label: `Bench item number ${n}, ${STATUSES[n % 3]} lot`,
    quantity: Math.floor(random() * 10_000),
    price: Math.round(random() * 1_000_000) / 100,
    inStock: random() < 0.5,
    releasedOn: new Date(EPOCH_2000 + Math.floor(random() * 9_000) * DAY_MS).toISOString().slice(0, 10),
    status: STATUSES[Math.floor(random() * STATUSES.length)],
    category: categoryId(1 + (n % CATEGORIES)),
  }));
}

const stacks = new Map<string, BrowserStack>();
const raws = new Map<string, RawDb>();
/** per database: the ids and codes it holds, for the lookups */
const filled = new Map<string, { ids: string[]; codes: string[] }>();

const steps: Record<string, (args: Record<string, any>) => Promise<unknown>> = {
  /** engine: a fresh stack with Category (+5 documents) and Item; then `createDocs` of `docs` Items, timed */
  async engineBulk({ name, docs, seed }) {
    const stack = (await createStack({ name, adapter: 'indexeddb', plugins: browser })) as unknown as BrowserStack;
    stacks.set(name, stack);
    await Class.create(stack, 'Category', 'class', '', { name: { type: 'string', mandatory: true } });
    await Class.create(stack, 'Item', 'class', '', ITEM_SCHEMA as never);
    await stack.createDocs(Array.from({ length: CATEGORIES }, (_, i) => ({ '~class': 'Category', _id: categoryId(i + 1), name: `Category ${i + 1}` })));
    const inputs = attributes(docs, seed).map((a) => ({ '~class': 'Item', ...a }));
    const start = performance.now();
    const stored = await stack.createDocs(inputs);
    const ms = performance.now() - start;
    filled.set(name, { ids: stored.map((d) => d._id), codes: inputs.map((d) => String((d as Record<string, unknown>).code)) });
    return ms;
  },
  /** raw: the same stored documents (the engine's shape) with bulkDocs, in one call or in chunks of `chunk` */
  async rawBulk({ name, docs, seed, chunk }) {
    const db = new PouchDB<Record<string, unknown>>(name, { adapter: 'idb' });
    raws.set(name, db);
    await db.info();
    const now = new Date().toISOString();
    await db.bulkDocs(Array.from({ length: CATEGORIES }, (_, i) => ({ _id: categoryId(i + 1), '~class': 'Category', name: `Category ${i + 1}`, '~createTimestamp': now, active: true })));
    const all = attributes(docs, seed).map((a) => ({ _id: `Item-${crypto.randomUUID()}`, '~class': 'Item', ...a, '~createTimestamp': now, active: true }));
    const size = chunk ?? all.length;
    const start = performance.now();
    for (let i = 0; i < all.length; i += size) await db.bulkDocs(all.slice(i, i + size));
    const ms = performance.now() - start;
    filled.set(name, { ids: all.map((d) => d._id), codes: all.map((d) => String((d as Record<string, unknown>).code)) });
    return ms;
  },
  /** engine: `count` primary-key lookups (one at a time), timed */
  async engineLookups({ name, count, seed }) {
    const stack = stacks.get(name)!;
    const items = await stack.getClass('Item');
    const { codes } = filled.get(name)!;
    const random = prng(seed);
    const picks = Array.from({ length: count }, () => codes[Math.floor(random() * codes.length)]);
    const start = performance.now();
    for (const code of picks) {
      if (!(await items.getByPrimaryKeys({ code }))) throw new Error(`no Item ${code}`);
    }
    return performance.now() - start;
  },
  /** raw: `count` gets by id (one at a time), timed */
  async rawLookups({ name, count, seed }) {
    const db = raws.get(name)!;
    const { ids } = filled.get(name)!;
    const random = prng(seed);
    const picks = Array.from({ length: count }, () => ids[Math.floor(random() * ids.length)]);
    const start = performance.now();
    for (const id of picks) await db.get(id);
    return performance.now() - start;
  },
  /** closes and deletes every database of the round (not timed) */
  async cleanup() {
    const names = [...stacks.keys(), ...raws.keys()];
    for (const stack of stacks.values()) await stack.close();
    for (const db of raws.values()) await db.close();
    stacks.clear();
    raws.clear();
    filled.clear();
    for (const name of names) await new PouchDB(name, { adapter: 'idb' }).destroy();
    return names.length;
  },
};

(globalThis as unknown as { docstackTest: unknown }).docstackTest = {
  run(step: string, args: Record<string, unknown> = {}) {
    const fn = steps[step];
    if (!fn) throw new Error(`no step "${step}"`);
    return fn(args);
  },
};
