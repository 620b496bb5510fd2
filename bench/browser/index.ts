/**
 * bench/browser: docstack in Chromium on IndexedDB against raw PouchDB, Dexie and RxDB on Dexie
 * storage, all in the same page and the same run (bench/browser/sides.ts holds each side).
 *
 * Per round, every side on its own fresh IndexedDB database (deleted after the step):
 *   1. bulk insert of DOCS Items, then LOOKUPS lookups by primary key on that database;
 *   2. SERIAL single inserts on another fresh database.
 * docstack runs on both of its IndexedDB adapters ("indexeddb" = pouchdb-adapter-indexeddb, the
 * default, patched as the bundles carry it; "indexeddb-idb" = pouchdb-adapter-idb, handed in);
 * raw PouchDB on each, at 250 per bulkDocs call (the engine's call size on leveldb and memory)
 * and a put per serial insert; the single-call bulkDocs is shown beside it, labelled — the
 * engine's own call size on pouchdb-adapter-indexeddb (up to 10,000 a call, storage/write-chunks.ts).
 * The order of the sides rotates every round.
 * The page is test/browser's harness: the real bundle served from 127.0.0.1, Debian's chromium.
 */
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../../test/browser/harness.js';
import { comparison, record, rotate, summarize, type BenchOptions, type BenchReport, type Comparison, type Sample } from '../harness.js';

const DOCS = 10_000;
const SERIAL = 1_000;
const LOOKUPS = 3_000;
const WARMUP_SCALE = 0.2;
/** Issue 29's aims in Chromium, against RxDB on Dexie in the same page. */
const AIMS = { bulk: 1.5, serial: 1.0, lookups: 0.7 } as const;

type Op = keyof typeof AIMS;
const SIDES = ['docstack', 'docstack-idb', 'pouchdb', 'pouchdb-one-call', 'pouchdb-idb', 'dexie', 'rxdb'] as const;
type SideName = (typeof SIDES)[number];
/** the single-call baseline is a bulk figure only */
const sidesOf = (op: Op): SideName[] => SIDES.filter((s) => op === 'bulk' || s !== 'pouchdb-one-call');

const OPS: Record<Op, { name: string; call: Record<SideName, string> }> = {
  bulk: {
    name: `bulk insert ${DOCS.toLocaleString('en')}`,
    call: { docstack: 'createDocs', 'docstack-idb': 'createDocs', pouchdb: 'bulkDocs, 250 per call', 'pouchdb-one-call': 'bulkDocs, one call', 'pouchdb-idb': 'bulkDocs, 250 per call', dexie: 'bulkAdd', rxdb: 'bulkInsert' },
  },
  serial: {
    name: `serial insert ×${SERIAL.toLocaleString('en')}`,
    call: { docstack: 'createDoc', 'docstack-idb': 'createDoc', pouchdb: 'put', 'pouchdb-one-call': '', 'pouchdb-idb': 'put', dexie: 'add', rxdb: 'insert' },
  },
  lookups: {
    name: `pk lookup ×${LOOKUPS.toLocaleString('en')}`,
    call: { docstack: 'getByPrimaryKeys', 'docstack-idb': 'getByPrimaryKeys', pouchdb: 'get(_id)', 'pouchdb-one-call': '', 'pouchdb-idb': 'get(_id)', dexie: 'get', rxdb: 'findOne(pk)' },
  },
};

const LABEL: Record<SideName, string> = {
  docstack: 'docstack (indexeddb: pouchdb-adapter-indexeddb)',
  'docstack-idb': 'docstack (indexeddb-idb: pouchdb-adapter-idb)',
  pouchdb: 'PouchDB indexeddb',
  'pouchdb-one-call': 'PouchDB indexeddb',
  'pouchdb-idb': 'PouchDB idb',
  dexie: 'Dexie',
  rxdb: 'RxDB on Dexie (ajv)',
};

/** engine ÷ baseline pairs per operation; the aims bind docstack's default adapter against RxDB */
const PAIRS: [SideName, SideName][] = [
  ['docstack', 'rxdb'],
  ['docstack', 'dexie'],
  ['docstack', 'pouchdb'],
  ['docstack', 'pouchdb-one-call'],
  ['docstack-idb', 'rxdb'],
  ['docstack-idb', 'pouchdb-idb'],
  ['docstack', 'docstack-idb'],
  ['rxdb', 'dexie'],
];

/**
 * A timed step: the page's wall clock (performance.now) and the CPU time of every Chromium
 * process over the step (DevTools' SystemInfo.getProcessInfo, 10 ms resolution): the browser
 * process and the storage service do IndexedDB's work, the renderer runs the page. On a machine
 * shared with other work the CPU ratio moves far less than the wall ratio.
 */
async function timer(harness: Harness): Promise<(run: () => Promise<number>) => Promise<Sample>> {
  const cdp = await harness.browser.newBrowserCDPSession();
  const cpuMs = async () => {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo' as never)) as unknown as { processInfo: { cpuTime: number }[] };
    return processInfo.reduce((sum, p) => sum + p.cpuTime, 0) * 1000;
  };
  return async (run) => {
    const before = await cpuMs();
    const wallMs = await run();
    return { wallMs, cpuMs: (await cpuMs()) - before };
  };
}

export async function runBrowser(options: BenchOptions): Promise<BenchReport> {
  const peers = fileURLToPath(new URL('../peers/node_modules', import.meta.url));
  const harness = await startHarness(fileURLToPath(new URL('./page.ts', import.meta.url)), { nodePaths: [peers] });
  try {
    const context = await harness.context();
    const tab = await harness.page(context);
    const timed = await timer(harness);
    const comparisons = new Map<string, Comparison>();
    for (const op of Object.keys(OPS) as Op[]) {
      for (const [engine, baseline] of PAIRS) {
        if (!sidesOf(op).includes(baseline)) continue;
        const aim = engine === 'docstack' && baseline === 'rxdb' ? { max: AIMS[op], binding: true } : undefined;
        comparisons.set(`${op}:${engine}:${baseline}`, comparison({ name: OPS[op].name, adapter: `${LABEL[engine]} ÷ ${LABEL[baseline]}`, engine: OPS[op].call[engine], baseline: OPS[op].call[baseline], ...(aim ? { aim } : {}) }));
      }
    }
    for (let round = -1; round < options.rounds; round++) {
      const warm = round < 0;
      const scale = warm ? WARMUP_SCALE : 1;
      const seed = 1000 + round;
      const times: Record<Op, Partial<Record<SideName, Sample>>> = { bulk: {}, serial: {}, lookups: {} };
      // bulk, then lookups on the database just filled (the lookups rotate on their own)
      for (const side of rotate(sidesOf('bulk'), round + 1)) {
        const name = `bench-${side}-${round + 1}`;
        await tab.run('open', { side, name });
        times.bulk[side] = await timed(() => tab.run<number>('bulk', { name, docs: DOCS * scale, seed }));
      }
      for (const side of rotate(sidesOf('lookups'), round + 2)) {
        times.lookups[side] = await timed(() => tab.run<number>('lookups', { name: `bench-${side}-${round + 1}`, count: LOOKUPS * scale, seed }));
      }
      for (const side of sidesOf('bulk')) await tab.run('destroy', { name: `bench-${side}-${round + 1}` });
      for (const side of rotate(sidesOf('serial'), round + 3)) {
        const name = `bench-serial-${side}-${round + 1}`;
        await tab.run('open', { side, name });
        times.serial[side] = await timed(() => tab.run<number>('serial', { name, docs: SERIAL * scale, seed }));
        await tab.run('destroy', { name });
      }
      const vsRx = (op: Op) => `${(times[op].docstack!.wallMs / times[op].rxdb!.wallMs).toFixed(2)}× (cpu ${(times[op].docstack!.cpuMs / times[op].rxdb!.cpuMs).toFixed(2)}×)`;
      if (warm) {
        options.log('warm-up round done');
        continue;
      }
      for (const [key, c] of comparisons) {
        const [op, engine, baseline] = key.split(':') as [Op, SideName, SideName];
        record(c, times[op][engine]!, times[op][baseline]!);
      }
      const ms = Object.fromEntries(Object.entries(times).map(([op, bySide]) => [op, Object.fromEntries(Object.entries(bySide).map(([k, t]) => [k, [Math.round(t.wallMs), Math.round(t.cpuMs)]]))]));
      options.log(`round ${round + 1}: docstack ÷ RxDB on Dexie: bulk ${vsRx('bulk')}, serial ${vsRx('serial')}, lookups ${vsRx('lookups')}; [wall, cpu] ms ${JSON.stringify(ms)}`);
    }
    return {
      bench: 'browser',
      settings: {
        browser: `chromium ${harness.browser.version()} (headless)`,
        time: 'wall = the page\'s performance.now; cpu = CPU time of all Chromium processes over the step (SystemInfo.getProcessInfo, 10 ms resolution)',
        adapters: 'docstack "indexeddb" = pouchdb-adapter-indexeddb (default, patched as the bundles carry it), "indexeddb-idb" = pouchdb-adapter-idb (handed in)',
        peers: 'raw PouchDB 9 (pouchdb-core + the same adapter), Dexie 4 (no validation), RxDB 17 on its Dexie storage with its ajv validator; all in the same page',
        rounds: options.rounds,
        warmupScale: WARMUP_SCALE,
        docs: DOCS,
        serial: SERIAL,
        lookups: LOOKUPS,
        plugins: 'browser preset',
        bundleGzipBytes: harness.bundle.gzipped,
        attributes: { code: 'string (pk)', label: 'string', quantity: 'integer', price: 'decimal', inStock: 'boolean', releasedOn: 'date', status: 'enum', category: 'foreign_key' },
      },
      results: [...comparisons.values()].map(summarize),
    };
  } finally {
    await harness.close();
  }
}
