/**
 * bench/compare: docstack, raw PouchDB and RxDB (its open-source memory storage with ajv
 * validation, from bench/peers) side by side in one run, memory adapter, each ratio against raw
 * PouchDB in the same round:
 *   - bulk insert of 10,000 documents (one call each side);
 *   - 1,000 serial single-document inserts;
 *   - 3,000 primary-key lookups;
 *   - count of a class of 100,000 (docstack: `countDocuments`, raw: the class's id range
 *     without documents, RxDB: `count()`);
 *   - a 1% range on an indexed attribute of 100,000 (docstack: findDocuments with the sql
 *     plugin's `indexed: true`, raw: pouchdb-find with an index, RxDB: an indexed field).
 * RxDB is skipped (and said so) when bench/peers has not installed it.
 *
 * A fourth side, "PouchDB + docstack's entries", is raw PouchDB doing the storage work docstack's
 * design asks of every write, without the engine: the same stored shape under random ids, a
 * primary-key entry (`_local`) per document and the class counter (`_local`) in the same
 * bulkDocs call, chunks of 250; a lookup is one get by a random id (what getByPrimaryKeys does
 * when its key hint holds). docstack ÷ that side is the engine's own overhead; that side ÷ raw
 * PouchDB is what the stored entries cost. For bulk and serial inserts the floor is also climbed
 * one step at a time (floorSide's steps, up to reading each key entry first as the engine does),
 * so each piece of stored work has its own ratio, and docstack ÷ the last step is the engine alone;
 * docstack's kernel without any plugin (so without validation), with and without a primary key,
 * shows what the engine costs before a plugin runs.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import PouchDB from 'pouchdb-core';
import memoryAdapter from 'pouchdb-adapter-memory';
import pouchdbFind from 'pouchdb-find';
import { Class, createStack, type ClientStack } from '../index.js';
import { browser, browserWithSql } from '../plugins.config.js';
import { comparison, measure, record, summarize, time, type BenchReport, type Comparison, type Sample, type BenchOptions } from './harness.js';

PouchDB.plugin(memoryAdapter).plugin(pouchdbFind as unknown as PouchDB.Plugin);

type RawDb = PouchDB.Database<Record<string, unknown>> & { createIndex(o: object): Promise<unknown>; find(o: object): Promise<{ docs: unknown[] }> };

const BULK = 10_000;
const SERIAL = 1_000;
const LOOKUPS = 3_000;
const BIG = 100_000;
const WINDOW = BIG / 100;
const STATUSES = ['draft', 'active', 'retired'];

/** score of item i: a permutation of 0..BIG-1, so a 1% window is spread over the id order */
const scoreOf = (i: number) => (i * 7919) % BIG;
const attributes = (i: number) => ({ code: `C${String(i).padStart(7, '0')}`, label: `item ${i}`, quantity: i % 1000, score: scoreOf(i), status: STATUSES[i % 3] });

let names = 0;
const fresh = (side: string) => `cmp-${side}-${process.pid}-${++names}`;

// ---- the three sides -----------------------------------------------------------------------

interface Side {
  bulk(docs: ReturnType<typeof attributes>[]): Promise<unknown>;
  insert(doc: ReturnType<typeof attributes>): Promise<unknown>;
  lookup(code: string): Promise<unknown>;
  count(): Promise<number>;
  range(lo: number, hi: number): Promise<number>;
  close(): Promise<unknown>;
}

/**
 * `withSql`: the browserWithSql preset (the range needs its index); else the browser preset, as
 * bench/pipeline. `kernelOnly`: no plugins at all, and `withoutKey`: no primary key either (the
 * bulk and serial extra sides: what the kernel costs alone, and what a key adds to it).
 */
async function docstackSide(withSql: boolean, variant: { kernelOnly?: boolean; withoutKey?: boolean } = {}): Promise<Side> {
  const plugins = variant.kernelOnly ? [] : withSql ? browserWithSql : browser;
  const stack: ClientStack = await createStack({ name: fresh('docstack'), adapter: 'memory', plugins });
  const items = await Class.create(stack, 'Item', 'class', '', {
    code: { type: 'string', primaryKey: !variant.withoutKey, maxLength: 16 },
    label: { type: 'string', maxLength: 40 },
    quantity: { type: 'integer', min: 0 },
    score: { type: 'integer', ...(withSql ? { indexed: true } : {}) },
    status: { type: 'enum', values: STATUSES },
  });
  return {
    bulk: (docs) => stack.createDocs(docs.map((d) => ({ '~class': 'Item', ...d }))),
    insert: (doc) => stack.createDoc({ '~class': 'Item', ...doc }),
    lookup: async (code) => {
      if (!(await items.getByPrimaryKeys({ code }))) throw new Error(`docstack missed ${code}`);
    },
    count: () => stack.countDocuments('Item'),
    range: async (lo, hi) => (await stack.findDocuments('Item', { score: { $gte: lo, $lt: hi } })).length,
    close: () => stack.close(),
  };
}

async function rawSide(): Promise<Side> {
  const db = new PouchDB<Record<string, unknown>>(fresh('raw'), { adapter: 'memory' } as PouchDB.Configuration.DatabaseConfiguration) as RawDb;
  const now = new Date().toISOString();
  // the engine's stored shape; the primary key is the id (the cheapest raw lookup there is)
  const shape = (d: ReturnType<typeof attributes>) => ({ _id: `Item-${d.code}`, '~class': 'Item', ...d, '~createTimestamp': now, active: true });
  let indexed = false;
  return {
    bulk: (docs) => db.bulkDocs(docs.map(shape)),
    insert: (doc) => db.put(shape(doc)),
    lookup: (code) => db.get(`Item-${code}`),
    count: async () => (await db.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff' })).rows.length,
    range: async (lo, hi) => {
      if (!indexed) {
        await db.createIndex({ index: { fields: ['score'] } });
        indexed = true;
      }
      return (await db.find({ selector: { score: { $gte: lo, $lt: hi } }, limit: BIG })).docs.length;
    },
    close: () => db.destroy(),
  };
}

/**
 * What docstack's stored shape costs PouchDB, one step at a time (see the header). Each step adds
 * one piece of storage work to the one before, all without the engine:
 *   - `random id`: the engine's stored shape under `<Class>-<uuid>` ids, one bulkDocs call per
 *     chunk of 250 (a serial insert is a call of one);
 *   - `key entry`: a primary-key entry (`_local`) per document in the same call;
 *   - `counter`: the class counter (`_local`) in the same call too: the storage floor, what
 *     every docstack write stores;
 *   - `key read`: each key entry read before the call, as the engine must (PouchDB stores a
 *     document even when the `_local` claim beside it is refused, so a taken key is found first).
 */
type FloorStep = 'random id' | 'key entry' | 'counter' | 'key read';
const FLOOR_STEPS: FloorStep[] = ['random id', 'key entry', 'counter', 'key read'];

async function floorSide(upTo: FloorStep = 'counter'): Promise<Side> {
  const db = new PouchDB<Record<string, unknown>>(fresh('floor'), { adapter: 'memory' } as PouchDB.Configuration.DatabaseConfiguration) as RawDb;
  const has = (step: FloorStep) => FLOOR_STEPS.indexOf(step) <= FLOOR_STEPS.indexOf(upTo);
  const now = new Date().toISOString();
  const ids = new Map<string, string>();
  let counter: { _id: string; _rev?: string; count: number } = { _id: '_local/~count/Item', count: 0 };
  const shape = (d: ReturnType<typeof attributes>) => {
    const id = `Item-${globalThis.crypto.randomUUID()}`;
    ids.set(d.code, id);
    return { _id: id, '~class': 'Item', ...d, '~createTimestamp': now, '~updateTimestamp': now, active: true };
  };
  const keyId = (d: ReturnType<typeof attributes>) => `_local/~pk/Item/${JSON.stringify([d.code])}`;
  const entry = (d: ReturnType<typeof attributes>, id: string) => ({ _id: keyId(d), docId: id, claimedAt: Date.now() });
  const write = async (docs: ReturnType<typeof attributes>[]) => {
    if (has('key read')) await Promise.all(docs.map((d) => db.get(keyId(d)).catch(() => null)));
    const stored = docs.map(shape);
    const entries = has('key entry') ? docs.map((d, i) => entry(d, stored[i]._id)) : [];
    if (has('counter')) counter = { ...counter, count: counter.count + docs.length };
    const results = await db.bulkDocs([...entries, ...(has('counter') ? [{ ...counter }] : []), ...stored] as never[]);
    if (has('counter')) counter._rev = (results[entries.length] as { rev: string }).rev;
  };
  return {
    bulk: async (docs) => {
      for (let start = 0; start < docs.length; start += 250) await write(docs.slice(start, start + 250));
    },
    insert: (doc) => write([doc]),
    lookup: (code) => db.get(ids.get(code)!),
    count: async () => (await db.get('_local/~count/Item')).count as number,
    range: async () => 0,
    close: () => db.destroy(),
  };
}

/** RxDB's memory storage wrapped in its ajv validator; undefined when bench/peers lacks rxdb. */
async function rxdbSide(log: (line: string) => void): Promise<Side | undefined> {
  const require = createRequire(fileURLToPath(new URL('./peers/package.json', import.meta.url)));
  let core: any, memory: any, ajv: any;
  try {
    core = await import(require.resolve('rxdb'));
    memory = await import(require.resolve('rxdb/plugins/storage-memory'));
    ajv = await import(require.resolve('rxdb/plugins/validate-ajv'));
  } catch {
    log('compare: rxdb is not installed in bench/peers (npm run bench:peers); its rows are skipped');
    return undefined;
  }
  const db = await core.createRxDatabase({ name: fresh('rx').replace(/-/g, ''), storage: ajv.wrappedValidateAjvStorage({ storage: memory.getRxStorageMemory() }) });
  await db.addCollections({
    items: {
      schema: {
        version: 0,
        primaryKey: 'code',
        type: 'object',
        properties: {
          code: { type: 'string', maxLength: 16 },
          label: { type: 'string', maxLength: 40 },
          quantity: { type: 'integer', minimum: 0 },
          score: { type: 'integer', minimum: 0, maximum: BIG, multipleOf: 1 },
          status: { type: 'string', enum: STATUSES },
        },
        required: ['code', 'score'],
        indexes: ['score'],
      },
    },
  });
  const items = db.items;
  return {
    bulk: (docs) => items.bulkInsert(docs),
    insert: (doc) => items.insert(doc),
    lookup: async (code) => {
      if (!(await items.findOne(code).exec())) throw new Error(`rxdb missed ${code}`);
    },
    count: () => items.count().exec(),
    range: async (lo, hi) => (await items.find({ selector: { score: { $gte: lo, $lt: hi } } }).exec()).length,
    close: () => db.remove(),
  };
}

// ---- the run -------------------------------------------------------------------------------

/**
 * `n` runs in a row after one untimed run and a quiet moment, the mean, without a forced
 * collection right before (a full GC of a 300,000-document heap leaves sweeping work that lands
 * on a sub-millisecond call). The quiet moment lets timers the previous step left (RxDB's
 * background work, PouchDB's) run before, not inside, a block of calls that take microseconds.
 */
async function meanOf(n: number, fn: () => Promise<unknown>): Promise<Sample> {
  await fn();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const block = await time(async () => {
    for (let k = 0; k < n; k++) await fn();
  });
  return { wallMs: block.wallMs / n, cpuMs: block.cpuMs / n };
}

export async function runCompare(options: BenchOptions): Promise<BenchReport> {
  const { rounds, log } = options;
  const rxAvailable = (await rxdbSide(() => undefined).then(async (s) => (await s?.close(), s !== undefined))) ?? false;
  if (!rxAvailable) log('compare: rxdb is not installed in bench/peers (npm run bench:peers); its rows are skipped');
  const c = (name: string, engine: string, baseline: string, aim?: number) => comparison({ name, adapter: 'memory', engine, baseline, ...(aim ? { aim: { max: aim, binding: engine.startsWith('docstack') } } : {}) });
  const rows: Record<string, [Comparison, Comparison]> = {
    bulk: [c('bulk insert 10,000', 'docstack createDocs', 'PouchDB bulkDocs', 1.1), c('bulk insert 10,000', 'RxDB bulkInsert', 'PouchDB bulkDocs')],
    serial: [c('serial insert ×1,000', 'docstack createDoc', 'PouchDB put', 1.3), c('serial insert ×1,000', 'RxDB insert', 'PouchDB put')],
    lookup: [c('pk lookup ×3,000', 'docstack getByPrimaryKeys', 'PouchDB get(_id)', 1.2), c('pk lookup ×3,000', 'RxDB findOne(pk)', 'PouchDB get(_id)')],
    count: [c('count of 100,000 (mean)', 'docstack countDocuments', 'PouchDB allDocs id range'), c('count of 100,000 (mean)', 'RxDB count()', 'PouchDB allDocs id range')],
    range: [c('range 1% of 100,000 (indexed)', 'docstack findDocuments (sql index)', 'pouchdb-find (index)'), c('range 1% of 100,000 (indexed)', 'RxDB find (index)', 'pouchdb-find (index)')],
  };
  // the storage floor (see the header): what docstack's stored entries cost, and the engine's share on top
  const floorRows: Record<string, [Comparison, Comparison]> = {
    bulk: [c('bulk insert 10,000', 'PouchDB + docstack entries', 'PouchDB bulkDocs'), c('bulk insert 10,000', 'docstack createDocs', 'PouchDB + docstack entries')],
    serial: [c('serial insert ×1,000', 'PouchDB + docstack entries', 'PouchDB put'), c('serial insert ×1,000', 'docstack createDoc', 'PouchDB + docstack entries')],
    lookup: [c('pk lookup ×3,000', 'PouchDB get(random id)', 'PouchDB get(_id)'), c('pk lookup ×3,000', 'docstack getByPrimaryKeys', 'PouchDB get(random id)')],
  };
  // bulk and serial only, each ÷ raw PouchDB: the floor's steps one by one (floorSide; its `counter`
  // step is the floor side above), then docstack's kernel alone (no plugins, so no validation)
  // without and with a primary key; and docstack ÷ the last floor step, the engine alone
  const LADDER = FLOOR_STEPS.filter((step) => step !== 'counter');
  const extras: { engine: string; open: () => Promise<Side> }[] = [
    ...LADDER.map((step) => ({ engine: `PouchDB + docstack entries up to "${step}"`, open: () => floorSide(step) })),
    { engine: 'docstack kernel only, no primary key', open: () => docstackSide(false, { kernelOnly: true, withoutKey: true }) },
    { engine: 'docstack kernel only', open: () => docstackSide(false, { kernelOnly: true }) },
  ];
  const extraRowsOf = (name: string, baseline: string) => ({
    sides: extras.map((extra) => c(name, extra.engine, baseline)),
    engine: c(name, 'docstack (engine)', `PouchDB + docstack entries up to "${LADDER[LADDER.length - 1]}"`),
  });
  const extraRows = { bulk: extraRowsOf('bulk insert 10,000', 'PouchDB bulkDocs'), serial: extraRowsOf('serial insert ×1,000', 'PouchDB put') };
  const runExtras = async (key: 'bulk' | 'serial', work: (side: Side) => Promise<unknown>, ds: Sample, raw: Sample, keep: boolean) => {
    const samples: Sample[] = [];
    for (const extra of extras) {
      const side = await extra.open();
      samples.push(await measure(() => work(side)));
      await side.close();
    }
    if (!keep) return;
    samples.forEach((sample, i) => record(extraRows[key].sides[i], sample, raw));
    record(extraRows[key].engine, ds, samples[LADDER.length - 1]);
  };
  const put = (key: string, ds: Sample, raw: Sample, rx: Sample | null, floor?: Sample) => {
    record(rows[key][0], ds, raw);
    if (rx) record(rows[key][1], rx, raw);
    if (floor) {
      record(floorRows[key][0], floor, raw);
      record(floorRows[key][1], ds, floor);
    }
  };
  const open = async (withSql = false) => ({ ds: await docstackSide(withSql), raw: await rawSide(), rx: rxAvailable ? await rxdbSide(log) : undefined, floor: withSql ? undefined : await floorSide() });
  const absolute: Record<string, number[]> = { countMs: [], rangeMs: [] };

  for (let round = 0; round <= rounds; round++) {
    log(`compare: ${round === 0 ? 'warm-up' : `round ${round}/${rounds}`}`);
    const scale = round === 0 ? 0.2 : 1;
    const docs = Array.from({ length: BULK * scale }, (_, i) => attributes(i));
    const small = await open();
    const bulk = { ds: await measure(() => small.ds.bulk(docs)), raw: await measure(() => small.raw.bulk(docs)), rx: small.rx ? await measure(() => small.rx!.bulk(docs)) : null, floor: await measure(() => small.floor!.bulk(docs)) };
    const picks = Array.from({ length: LOOKUPS * scale }, (_, k) => docs[(k * 7) % docs.length].code);
    const run = (side: Side | undefined) => (side ? measure(async () => { for (const code of picks) await side.lookup(code); }) : Promise.resolve(null));
    const lookup = { ds: (await run(small.ds))!, raw: (await run(small.raw))!, rx: await run(small.rx), floor: (await run(small.floor))! };
    for (const s of [small.ds, small.raw, small.rx, small.floor]) await s?.close();
    await runExtras('bulk', (side) => side.bulk(docs), bulk.ds, bulk.raw, round > 0);
    const serialDocs = Array.from({ length: SERIAL * scale }, (_, i) => attributes(BULK + i));
    const serialSides = await open();
    const insertAll = async (side: Side) => {
      for (const d of serialDocs) await side.insert(d);
    };
    const serially = (side: Side | undefined) => (side ? measure(() => insertAll(side)) : Promise.resolve(null));
    const serial = { ds: (await serially(serialSides.ds))!, raw: (await serially(serialSides.raw))!, rx: await serially(serialSides.rx), floor: (await serially(serialSides.floor))! };
    for (const s of [serialSides.ds, serialSides.raw, serialSides.rx, serialSides.floor]) await s?.close();
    await runExtras('serial', insertAll, serial.ds, serial.raw, round > 0);
    if (round === 0) continue;
    put('bulk', bulk.ds, bulk.raw, bulk.rx, bulk.floor);
    put('lookup', lookup.ds, lookup.raw, lookup.rx, lookup.floor);
    put('serial', serial.ds, serial.raw, serial.rx, serial.floor);
  }

  // 100,000 documents once per side (not timed), then the reads per round
  log('compare: storing 100,000 documents per side');
  const big = await open(true);
  for (let start = 0; start < BIG; start += BULK) {
    const docs = Array.from({ length: BULK }, (_, k) => attributes(start + k));
    for (const side of [big.ds, big.raw, big.rx]) await side?.bulk(docs);
  }
  const counted = { ds: await big.ds.count(), raw: await big.raw.count(), rx: await big.rx?.count() };
  if (counted.ds !== BIG || counted.raw !== BIG || (big.rx && counted.rx !== BIG)) throw new Error(`counts differ: ${JSON.stringify(counted)}`);
  for (const side of [big.ds, big.raw, big.rx]) await side?.range(0, 1); // index builds (pouchdb-find view, sql index) are setup, not timed
  for (let round = 0; round <= rounds; round++) {
    const lo = ((round * 7_919 + 1_234) * 13) % (BIG - WINDOW);
    // the counts take microseconds (a mean of 100); the raw side reads 100,000 ids (a mean of 5)
    const count = { ds: await meanOf(100, () => big.ds.count()), raw: await meanOf(5, () => big.raw.count()), rx: big.rx ? await meanOf(100, () => big.rx!.count()) : null };
    const found: number[] = [];
    const ranged = async (side: Side | undefined) => (side ? measure(async () => found.push(await side.range(lo, lo + WINDOW))) : null);
    const range = { ds: (await ranged(big.ds))!, raw: (await ranged(big.raw))!, rx: await ranged(big.rx) };
    if (found.some((n) => n !== WINDOW)) throw new Error(`a 1% range found ${found.join(', ')} documents, expected ${WINDOW}`);
    if (round === 0) continue;
    put('count', count.ds, count.raw, count.rx);
    put('range', range.ds, range.raw, range.rx);
    absolute.countMs.push(Math.round(count.ds.wallMs * 1000) / 1000);
    absolute.rangeMs.push(Math.round(range.ds.wallMs * 10) / 10);
  }
  for (const side of [big.ds, big.raw, big.rx]) await side?.close();
  const countMs = [...absolute.countMs].sort((a, b) => a - b)[Math.floor(absolute.countMs.length / 2)];
  log(`compare: docstack count of a class of 100,000: ${countMs} ms, median of the rounds' means (aim ≤ 1 ms: ${countMs <= 1 ? 'met' : 'MISSED'})`);

  const results = [...Object.values(rows).flatMap(([ds, rx]) => (rxAvailable ? [ds, rx] : [ds])), ...Object.values(floorRows).flat(), ...Object.values(extraRows).flatMap((r) => [...r.sides, r.engine])].map(summarize);
  return {
    bench: 'compare',
    settings: { adapter: 'memory', rounds, bulk: BULK, serial: SERIAL, lookups: LOOKUPS, big: BIG, plugins: 'browser preset (bulk, serial, lookups); browserWithSql (count, range)', rxdb: rxAvailable ? 'rxdb memory storage + ajv (bench/peers)' : 'not installed', docstackCountMs: absolute.countMs, docstackRangeMs: absolute.rangeMs },
    results,
  };
}
