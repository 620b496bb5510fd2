/**
 * bench/browser: the engine in Chromium on IndexedDB against raw PouchDB on the same adapter
 * (pouchdb-core + pouchdb-adapter-idb, bundled into the bench page), in the same page.
 *
 * Per round, on fresh IndexedDB databases (deleted after the round):
 *   1. bulk insert of DOCS validated documents: `stack.createDocs(all)` against raw `bulkDocs`
 *      of the same stored documents in one call (the issue's baseline), and in chunks of 1,000
 *      (what the engine does inside: the like-for-like baseline);
 *   2. LOOKUPS primary-key lookups `items.getByPrimaryKeys({ code })` against `db.get(_id)`.
 * The sides' order rotates every round. The page is test/browser's harness: the real bundle
 * (scripts/build-browser.mjs) served from 127.0.0.1, Debian's chromium via playwright-core.
 */
import { fileURLToPath } from 'node:url';
import { startHarness } from '../../test/browser/harness.js';
import { comparison, record, rotate, summarize, type BenchOptions, type BenchReport, type Sample } from '../harness.js';

const DOCS = 10_000;
const CHUNK = 1_000;
const LOOKUPS = 3_000;
const WARMUP_SCALE = 0.2;
/** The aims (issue 9): bulk insert ≤ 1.3× raw PouchDB, lookups ≤ 2×. */
const BULK_AIM = 1.3;
const LOOKUP_AIM = 2;

/** The page measures wall-clock time only (performance.now); cpu is the same figure. */
const sample = (ms: number): Sample => ({ wallMs: ms, cpuMs: ms });

export async function runBrowser(options: BenchOptions): Promise<BenchReport> {
  const harness = await startHarness(fileURLToPath(new URL('./page.ts', import.meta.url)));
  try {
    const context = await harness.context();
    const tab = await harness.page(context);
    const adapter = 'indexeddb (chromium)';
    const bulk = comparison({ name: `bulk insert ${DOCS.toLocaleString('en')}`, adapter, engine: 'stack.createDocs', baseline: 'bulkDocs, one call', aim: { max: BULK_AIM, binding: true } });
    const bulkChunked = comparison({ name: `bulk insert ${DOCS.toLocaleString('en')}`, adapter, engine: 'stack.createDocs', baseline: `bulkDocs, ${CHUNK.toLocaleString('en')} per call` });
    const lookups = comparison({ name: `pk lookup ×${LOOKUPS.toLocaleString('en')}`, adapter, engine: 'getByPrimaryKeys', baseline: 'db.get(_id)', aim: { max: LOOKUP_AIM, binding: true } });
    for (let round = -1; round < options.rounds; round++) {
      const warm = round < 0;
      const docs = warm ? DOCS * WARMUP_SCALE : DOCS;
      const count = warm ? LOOKUPS * WARMUP_SCALE : LOOKUPS;
      const seed = 1000 + round;
      const names = { engine: `bench-engine-${round + 1}`, raw: `bench-raw-${round + 1}`, chunked: `bench-chunked-${round + 1}` };
      const times: Record<string, number> = {};
      for (const side of rotate(['engine', 'raw', 'chunked'] as const, round + 1)) {
        times[side] =
          side === 'engine'
            ? await tab.run<number>('engineBulk', { name: names.engine, docs, seed })
            : await tab.run<number>('rawBulk', { name: names[side], docs, seed, chunk: side === 'chunked' ? CHUNK : undefined });
      }
      for (const side of rotate(['engine', 'raw'] as const, round + 1)) {
        times[`${side}Lookups`] = await tab.run<number>(side === 'engine' ? 'engineLookups' : 'rawLookups', { name: names[side], count, seed });
      }
      await tab.run('cleanup');
      if (warm) {
        options.log('warm-up round done');
        continue;
      }
      record(bulk, sample(times.engine), sample(times.raw));
      record(bulkChunked, sample(times.engine), sample(times.chunked));
      record(lookups, sample(times.engineLookups), sample(times.rawLookups));
      options.log(`round ${round + 1}: bulk ${(times.engine / times.raw).toFixed(2)}×, lookups ${(times.engineLookups / times.rawLookups).toFixed(2)}×`);
    }
    const version = harness.browser.version();
    return {
      bench: 'browser',
      settings: {
        browser: `chromium ${version} (headless)`,
        adapter: 'pouchdb-adapter-idb (docstack adapter "indexeddb")',
        rounds: options.rounds,
        warmupScale: WARMUP_SCALE,
        docs: DOCS,
        lookups: LOOKUPS,
        plugins: 'browser preset',
        bundleGzipBytes: harness.bundle.gzipped,
        attributes: { code: 'string (pk)', label: 'string', quantity: 'integer', price: 'decimal', inStock: 'boolean', releasedOn: 'date', status: 'enum', category: 'foreign_key' },
      },
      results: [bulk, bulkChunked, lookups].map(summarize),
    };
  } finally {
    await harness.close();
  }
}
