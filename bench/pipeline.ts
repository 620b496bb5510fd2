/**
 * bench/pipeline: what the write pipeline and primary-key reads cost over raw PouchDB.
 *
 * Per adapter (memory, leveldb) and per round, on fresh databases:
 *   1. bulk insert of DOCS documents: engine `stack.createDocs(all)` against raw
 *      `bulkDocs(all)` in one call (the baseline) and raw `bulkDocs` in chunks of
 *      CHUNK (what the engine does internally, so the honest like-for-like baseline);
 *   2. LOOKUPS primary-key lookups `items.getByPrimaryKeys({ code })` against raw
 *      `db.get(_id)` of the same documents, each on the database its side just filled;
 *   3. SERIAL serial `stack.createDoc` against SERIAL serial raw `db.put`.
 * Steps 2 and 3 alternate the sides in BLOCKS slices, so a leveldb compaction or another
 * program's burst does not land on one side only.
 * The raw documents have the engine's shape: same attributes plus the system fields the
 * engine adds (`_id` `<Class>-<uuid>`, `~class`, `~createTimestamp`, `active`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PouchDB from 'pouchdb-core';
import leveldbAdapter from 'pouchdb-adapter-leveldb';
import memoryAdapter from 'pouchdb-adapter-memory';
import { Class, createStack, type ClientStack, type NewDoc } from '../index.js';
import { browser } from '../plugins.config.js';
import { rawDatabase } from '../storage/raw-database.js';
import { collectGarbage, comparison, interleaved, measure, record, rotate, summarize, type Sample, type BenchReport, type Comparison, type ComparisonResult, type BenchOptions } from './harness.js';

type AdapterName = 'memory' | 'leveldb';
type RawDb = PouchDB.Database<Record<string, unknown>>;

const DOCS = 10_000;
const CHUNK = 250; // the engine's WRITE_CHUNK in kernel/pipeline-store.ts
const SERIAL = 1_000;
const LOOKUPS = 3_000;
/** The warm-up round runs every step at this fraction of the full size, then is thrown away. */
const WARMUP_SCALE = 0.2;
const CATEGORIES = 5;
const ADAPTERS: readonly AdapterName[] = ['memory', 'leveldb'];
const FEED_TIMEOUT_MS = 60_000;
/** Lookups and serial inserts run in this many alternating slices per side (see harness interleaved). */
const BLOCKS = 10;

/** The aims. The bulk aim binds on leveldb (the on-disk store users run). */
const BULK_AIM = 1.5;
const LOOKUP_AIM = 3;

// The truly raw baseline: pouchdb-core plus the adapter, nothing of the engine in between.
// (Adapters register in PouchDB's shared adapter table; the engine loads the same modules.)
PouchDB.plugin(leveldbAdapter).plugin(memoryAdapter);

interface Sizes {
  docs: number;
  serial: number;
  lookups: number;
}

// ---- data ----------------------------------------------------------------------------------

/** Deterministic values (mulberry32), so every run and both sides see the same documents. */
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

const STATUSES = ['draft', 'active', 'retired'] as const;
const DAY_MS = 86_400_000;
const EPOCH_2000 = Date.UTC(2000, 0, 1);

/** The eight attributes: one of each scalar type, a second (bounded) string and a foreign key. */
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

const categoryId = (n: number) => `Category-${n}`;

/** The attributes of item `n` (what a caller would hand to createDoc, minus `~class`). */
function itemAttributes(n: number, offset: number, random: () => number): Record<string, unknown> {
  return {
    code: `ITEM-${String(offset + n).padStart(7, '0')}`,
    label: `Bench item number ${offset + n}, ${STATUSES[n % 3]} lot`,
    quantity: Math.floor(random() * 10_000),
    price: Math.round(random() * 1_000_000) / 100, // at most 2 decimals, as the precision demands
    inStock: random() < 0.5,
    releasedOn: new Date(EPOCH_2000 + Math.floor(random() * 9_000) * DAY_MS).toISOString().slice(0, 10),
    status: STATUSES[Math.floor(random() * STATUSES.length)],
    category: categoryId(1 + (n % CATEGORIES)),
  };
}

function itemAttributeList(count: number, offset: number, seed: number): Record<string, unknown>[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, n) => itemAttributes(n, offset, random));
}

/** Engine input: attributes and `~class`; the engine adds id, timestamp and `active`. */
function engineInputs(attributes: Record<string, unknown>[]): NewDoc[] {
  return attributes.map((a) => ({ '~class': 'Item', ...a }));
}

/** Raw documents of the engine's stored shape (same field order as kernel/drafts.ts createDraft). */
function rawDocs(attributes: Record<string, unknown>[]): Record<string, unknown>[] {
  const now = new Date().toISOString();
  return attributes.map((a) => ({ _id: `Item-${randomUUID()}`, '~class': 'Item', ...a, '~createTimestamp': now, active: true }));
}

function rawCategories(): Record<string, unknown>[] {
  const now = new Date().toISOString();
  return Array.from({ length: CATEGORIES }, (_, i) => ({ _id: categoryId(i + 1), '~class': 'Category', name: `Category ${i + 1}`, '~createTimestamp': now, active: true }));
}

// ---- databases -----------------------------------------------------------------------------

/** Fresh, unique names: memdown keeps stores in a process-wide table keyed by name. */
let dbCounter = 0;
const freshName = (side: string) => `bench-${side}-${process.pid}-${++dbCounter}`;

interface Place {
  adapter: AdapterName;
  /** leveldb: the temp folder every database of this run lives in */
  dir: string;
}

async function openRaw(place: Place): Promise<RawDb> {
  const name = freshName('raw');
  const location = place.adapter === 'leveldb' ? join(place.dir, name) : name;
  const db = new PouchDB<Record<string, unknown>>(location, { adapter: place.adapter } as PouchDB.Configuration.DatabaseConfiguration);
  await db.bulkDocs(rawCategories()); // same database contents as the engine side before timing
  return db;
}

interface Engine {
  stack: ClientStack;
  items: Class;
  /** resolves once the stack's change feed has delivered every change written so far */
  settle(): Promise<void>;
}

/**
 * A fresh stack with the Category class, its documents and the Item class: setup, not timed.
 * `live`: an application listening to the Item class (a `change` listener), which keeps the
 * stack's change feed running.
 */
async function openEngine(place: Place, live = false): Promise<Engine> {
  const stack = await createStack({ name: freshName('engine'), adapter: place.adapter, dataDir: place.dir, plugins: browser });
  const settle = watchFeed(stack);
  await Class.create(stack, 'Category', 'class', 'bench categories', { name: { type: 'string', mandatory: true } });
  const items = await Class.create(stack, 'Item', 'class', 'bench items', ITEM_SCHEMA);
  if (live) items.on('change', () => undefined);
  await stack.createDocs(Array.from({ length: CATEGORIES }, (_, i) => ({ '~class': 'Category', _id: categoryId(i + 1), name: `Category ${i + 1}` })));
  await settle();
  return { stack, items, settle };
}

/**
 * While something listens (a live class object with listeners), the stack runs one live
 * `changes` feed, and PouchDB's live feed re-reads every new change after a write returns: after
 * a 10,000-document createDocs that is hundreds of milliseconds of work on the main thread. Left
 * running, it would be billed to whichever side runs next; so every engine step waits for the
 * feed to catch up (a passive watcher: it does not start the feed itself), and the "live" bulk
 * row reports the time including that catch-up.
 */
function watchFeed(stack: ClientStack): () => Promise<void> {
  let seen = 0;
  let waiter: { target: number; resolve: () => void } | null = null;
  stack.changes.subscribe(
    (change) => {
      seen = Math.max(seen, Number(change.seq));
      if (waiter && seen >= waiter.target) {
        waiter.resolve();
        waiter = null;
      }
    },
    { passive: true },
  );
  return async () => {
    if (!stack.changes.running) return; // nothing is listening: there is no feed to wait for
    const target = Number((await stack.storage.info()).updateSeq);
    if (seen >= target) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the change feed stopped at seq ${seen}, before ${target}`)), FEED_TIMEOUT_MS);
      waiter = {
        target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  };
}

/** Destroying frees memdown's store (memory) and the folder (leveldb) before the next round. */
async function dropRaw(db: RawDb): Promise<void> {
  await db.destroy();
}

async function dropEngine(stack: ClientStack, place: Place): Promise<void> {
  const { name } = stack;
  await stack.close();
  const location = place.adapter === 'leveldb' ? join(place.dir, name) : name;
  await new PouchDB(location, { adapter: place.adapter } as PouchDB.Configuration.DatabaseConfiguration).destroy();
}

// ---- the steps -----------------------------------------------------------------------------

interface Comparisons {
  bulkSingle: Comparison;
  bulkChunked: Comparison;
  bulkSettled: Comparison;
  lookup: Comparison;
  serial: Comparison;
}

function comparisonsFor(adapter: AdapterName): Comparisons {
  const bulkAim = { max: BULK_AIM, binding: adapter === 'leveldb' };
  return {
    bulkSingle: comparison({ name: `bulk insert ${fmt(DOCS)}`, adapter, engine: 'stack.createDocs', baseline: 'bulkDocs, 1 call', aim: bulkAim }),
    // same bound shown for context only: the promise is stated against the single call
    bulkChunked: comparison({ name: `bulk insert ${fmt(DOCS)}`, adapter, engine: 'stack.createDocs', baseline: `bulkDocs, ${fmt(CHUNK)}/call`, aim: { max: BULK_AIM, binding: false } }),
    // with a class listener attached the feed runs, and its catch-up after createDocs counts
    bulkSettled: comparison({ name: `bulk insert ${fmt(DOCS)}, live listener`, adapter, engine: 'createDocs + feed catch-up', baseline: 'bulkDocs, 1 call', aim: { max: BULK_AIM, binding: false } }),
    lookup: comparison({ name: `pk lookup ×${fmt(LOOKUPS)}`, adapter, engine: 'getByPrimaryKeys', baseline: 'db.get(_id)', aim: { max: LOOKUP_AIM, binding: true } }),
    serial: comparison({ name: `serial insert ×${fmt(SERIAL)}`, adapter, engine: 'stack.createDoc', baseline: 'db.put' }),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * One round on one adapter. Every side gets its own fresh database; within a step the order
 * of the sides rotates with the round number (and slice), so neither side always runs first.
 * When `into` is null (warm-up) the times are thrown away.
 */
async function runRound(place: Place, sizes: Sizes, round: number, into: Comparisons | null): Promise<void> {
  const seed = 1000 + round;
  const attributes = itemAttributeList(sizes.docs, 0, seed);

  // -- bulk insert: three sides, three fresh databases
  const single = await openRaw(place);
  const chunked = await openRaw(place);
  const engine = await openEngine(place);
  const liveEngine = await openEngine(place, true);
  const singleDocs = rawDocs(attributes);
  const chunkedDocs = rawDocs(attributes);
  const inputs = engineInputs(attributes);
  const bulk: Partial<Record<'single' | 'chunked' | 'engine' | 'live', Sample>> = {};
  const bulkSides: [keyof typeof bulk, () => Promise<unknown>][] = [
    ['single', () => single.bulkDocs(singleDocs)],
    [
      'chunked',
      async () => {
        for (let start = 0; start < chunkedDocs.length; start += CHUNK) await chunked.bulkDocs(chunkedDocs.slice(start, start + CHUNK));
      },
    ],
    ['engine', () => engine.stack.createDocs(inputs)],
    [
      'live',
      async () => {
        await liveEngine.stack.createDocs(engineInputs(attributes));
        await liveEngine.settle();
      },
    ],
  ];
  for (const [side, run] of rotate(bulkSides, round)) bulk[side] = await measure(run);
  await expectItems(single, sizes.docs, 'raw single-call bulkDocs');
  await expectItems(chunked, sizes.docs, 'raw chunked bulkDocs');
  await expectItems(rawDatabase(engine.stack), sizes.docs, 'engine createDocs');
  await dropRaw(chunked);
  await dropEngine(liveEngine.stack, place);

  // -- primary-key lookups, on the databases the bulk step just filled (DOCS documents each)
  const picks = pickIndexes(sizes.docs, sizes.lookups, seed);
  const codes = picks.map((i) => attributes[i].code as string);
  const ids = picks.map((i) => singleDocs[i]._id as string);
  const lookup = await interleaved(
    {
      baseline: async (block) => {
        for (const id of slice(ids, block)) await single.get(id);
      },
      engine: async (block) => {
        for (const code of slice(codes, block)) {
          // a miss would time the cheap path: the bench refuses to report it
          if (!(await engine.items.getByPrimaryKeys({ code }))) throw new Error(`getByPrimaryKeys missed ${code}`);
        }
      },
    },
    BLOCKS,
    round,
  );
  await dropRaw(single);
  await dropEngine(engine.stack, place);

  // -- serial single-document inserts, fresh databases again
  const serialAttributes = itemAttributeList(sizes.serial, sizes.docs, seed + 500);
  const serialRaw = await openRaw(place);
  const serialEngine = await openEngine(place);
  const serialDocs = rawDocs(serialAttributes);
  const serialInputs = engineInputs(serialAttributes);
  const serial = await interleaved(
    {
      baseline: async (block) => {
        for (const doc of slice(serialDocs, block)) await serialRaw.put(doc as PouchDB.Core.PutDocument<Record<string, unknown>>);
      },
      engine: async (block) => {
        for (const input of slice(serialInputs, block)) await serialEngine.stack.createDoc(input);
        await serialEngine.settle(); // the feed's tail of this block belongs to the engine, not to the next baseline block
      },
    },
    BLOCKS,
    round,
  );
  await dropRaw(serialRaw);
  await dropEngine(serialEngine.stack, place);
  collectGarbage();

  if (!into) return;
  record(into.bulkSingle, bulk.engine!, bulk.single!);
  record(into.bulkChunked, bulk.engine!, bulk.chunked!);
  record(into.bulkSettled, bulk.live!, bulk.single!);
  record(into.lookup, lookup.engine, lookup.baseline);
  record(into.serial, serial.engine, serial.baseline);
}

/** Both sides must have stored every item, or the ratio compares different work. */
async function expectItems(db: RawDb, expected: number, what: string): Promise<void> {
  const { rows } = await db.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff' });
  if (rows.length !== expected) throw new Error(`${what} stored ${rows.length} Item documents, expected ${expected}.`);
}

/** Block `block` of BLOCKS equal slices of a list. */
function slice<T>(items: readonly T[], block: number): readonly T[] {
  const size = Math.ceil(items.length / BLOCKS);
  return items.slice(block * size, (block + 1) * size);
}

/** `count` distinct indexes of [0, total), spread over the whole key range, in a shuffled order. */
function pickIndexes(total: number, count: number, seed: number): number[] {
  const step = Math.max(1, Math.floor(total / count));
  const picks = Array.from({ length: Math.min(count, total) }, (_, i) => (i * step) % total);
  const random = prng(seed * 7);
  for (let i = picks.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [picks[i], picks[j]] = [picks[j], picks[i]];
  }
  return picks;
}

// ---- entry ---------------------------------------------------------------------------------

export async function runPipeline(options: BenchOptions): Promise<BenchReport> {
  const { rounds, log } = options;
  const full: Sizes = { docs: DOCS, serial: SERIAL, lookups: LOOKUPS };
  const warm: Sizes = { docs: DOCS * WARMUP_SCALE, serial: SERIAL * WARMUP_SCALE, lookups: LOOKUPS * WARMUP_SCALE };
  const dir = await mkdtemp(join(tmpdir(), 'docstack-bench-'));
  const results: ComparisonResult[] = [];
  try {
    for (const adapter of ADAPTERS) {
      const place: Place = { adapter, dir };
      const comparisons = comparisonsFor(adapter);
      log(`pipeline/${adapter}: warm-up`);
      await runRound(place, warm, 0, null);
      for (let round = 1; round <= rounds; round++) {
        log(`pipeline/${adapter}: round ${round}/${rounds}`);
        await runRound(place, full, round, comparisons);
      }
      results.push(...Object.values(comparisons).map(summarize));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    bench: 'pipeline',
    settings: {
      adapters: ADAPTERS,
      rounds,
      warmupScale: WARMUP_SCALE,
      docs: DOCS,
      engineChunk: CHUNK,
      serialInserts: SERIAL,
      lookups: LOOKUPS,
      plugins: 'browser preset',
      attributes: Object.fromEntries(Object.entries(ITEM_SCHEMA).map(([k, v]) => [k, v.type])),
    },
    results,
  };
}
