/**
 * bench/first-open: the first open of a leveldb store just after a large write, against raw
 * PouchDB's open of the same store (issue 29: "first open after 100k writes ≤ 1.5× raw").
 *
 * Per preset (server, browser) and per way the writer stopped:
 *   - `closed`: the engine writes FIRST_OPEN_DOCS documents (default 100,000; a class with a
 *     primary key, `createDocs` of 1,000 — the pipeline stores them 250 per bulkDocs) and closes;
 *   - `killed`: a child process writes the same and is killed with SIGKILL right after its last
 *     write resolved (no onClose, nothing saved on close: what a crash leaves).
 * That store is the template. Each round copies it for each side just before timing that side
 * (flushed to disk, and as warm in the page cache) and times, the order flipping every round:
 *   - docstack: `createStack` of the same preset (storage, plugins, system patches, onOpen taps)
 *     plus `listClasses()`, the first thing an app asks that reads an index;
 *   - raw PouchDB (pouchdb-core + pouchdb-adapter-leveldb, the same modules docstack loads):
 *     `new PouchDB(path)` plus `db.info()`, what a raw app waits for before its first read.
 * A later open of the same copy (docstack again, raw again) is shown beside it, for reference.
 *
 * `FIRST_OPEN_DOCS=10000 npm run bench -- first-open --rounds=3` for a quick run.
 */
import { execFileSync, fork } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import PouchDB from 'pouchdb-core';
import leveldbAdapter from 'pouchdb-adapter-leveldb';
import { Class, createStack, type ClientStack } from '../index.js';
import { browser, server } from '../plugins.config.js';
import { comparison, measure, record, rotate, summarize, type BenchOptions, type BenchReport, type Comparison } from './harness.js';

PouchDB.plugin(leveldbAdapter);

const DOCS = Number(process.env.FIRST_OPEN_DOCS ?? 100_000);
const CALL = 1_000;
const PRESETS = { server, browser } as const;
type PresetName = keyof typeof PRESETS;
type Ending = 'closed' | 'killed';
const AIM = 1.5;
const STORE = 'first-open';

/** Writes the documents into `<dir>/first-open` with the preset; the caller closes (or kills) it. */
export async function writeStore(dir: string, preset: PresetName, docs: number): Promise<ClientStack> {
  const stack = await createStack({ name: STORE, adapter: 'leveldb', dataDir: dir, plugins: PRESETS[preset] });
  await Class.create(stack, 'Item', 'class', '', {
    code: { type: 'string', primaryKey: true, maxLength: 16 },
    label: { type: 'string', maxLength: 40 },
    quantity: { type: 'integer', min: 0 },
  });
  for (let start = 0; start < docs; start += CALL) {
    const call = [];
    for (let i = start; i < Math.min(docs, start + CALL); i++) call.push({ '~class': 'Item', code: `C${String(i).padStart(7, '0')}`, label: `item ${i}`, quantity: i % 1000 });
    await stack.createDocs(call);
  }
  return stack;
}

/** The template store for a preset and an ending. */
async function template(dir: string, preset: PresetName, ending: Ending): Promise<void> {
  if (ending === 'closed') {
    await (await writeStore(dir, preset, DOCS)).close();
    return;
  }
  const child = fork(fileURLToPath(import.meta.url), ['--write', dir, preset, String(DOCS)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    let written = false;
    child.once('message', () => {
      written = true;
      child.kill('SIGKILL');
    });
    child.once('error', reject);
    child.once('exit', (code) => (written ? resolve() : reject(new Error(`bench: the writer exited (${code}) before it finished`))));
  });
}

/**
 * Copies the template for one side just before it is timed, and flushes the copy to disk: a
 * copy's dirty pages still being written back made whichever side opened first in a round
 * ~40 ms slower (measured at 100,000 documents), an order effect rather than a cost.
 */
async function freshCopy(source: string, dir: string): Promise<void> {
  await cp(source, dir, { recursive: true });
  try {
    execFileSync('sync');
  } catch {
    // no sync(1) here: the copies are then left to the page cache as they are
  }
}

async function openEngine(dir: string, preset: PresetName): Promise<ClientStack> {
  const stack = await createStack({ name: STORE, adapter: 'leveldb', dataDir: dir, plugins: PRESETS[preset] });
  await stack.listClasses();
  return stack;
}

async function openRaw(dir: string): Promise<PouchDB.Database> {
  const db = new PouchDB(join(dir, STORE), { adapter: 'leveldb' });
  await db.info();
  return db;
}

export async function runFirstOpen({ rounds, log }: BenchOptions): Promise<BenchReport> {
  const root = await mkdtemp(join(tmpdir(), 'docstack-first-open-'));
  const comparisons: Comparison[] = [];
  try {
    for (const preset of Object.keys(PRESETS) as PresetName[]) {
      for (const ending of ['closed', 'killed'] as const) {
        const source = join(root, `${preset}-${ending}`);
        log(`${preset}, ${ending}: writing ${DOCS.toLocaleString('en')} documents`);
        await template(source, preset, ending);
        const first = comparison({ name: `first open after ${DOCS.toLocaleString('en')} writes (${ending})`, adapter: 'leveldb', engine: `docstack ${preset}`, baseline: 'raw PouchDB', aim: { max: AIM, binding: true } });
        const later = comparison({ name: `later open (${ending})`, adapter: 'leveldb', engine: `docstack ${preset}`, baseline: 'raw PouchDB' });
        // round 0 is the warm-up (modules loaded, JIT), thrown away
        for (let round = 0; round <= rounds; round++) {
          const dirs = { engine: join(root, `e-${round}`), raw: join(root, `r-${round}`) };
          const firstSamples = { engine: { wallMs: 0, cpuMs: 0 }, raw: { wallMs: 0, cpuMs: 0 } };
          const laterSamples = { engine: { wallMs: 0, cpuMs: 0 }, raw: { wallMs: 0, cpuMs: 0 } };
          let changesRead = 0;
          for (const side of rotate(['engine', 'raw'] as const, round)) {
            await freshCopy(source, dirs[side]);
            for (const pass of [firstSamples, laterSamples]) {
              let handle: { close(): Promise<unknown> } | undefined;
              pass[side] = await measure(async () => {
                handle = side === 'engine' ? await openEngine(dirs[side], preset) : await openRaw(dirs[side]);
              });
              if (pass === firstSamples && side === 'engine') changesRead = (handle as ClientStack).classNames.changesRead;
              await handle!.close();
            }
          }
          if (round > 0) {
            record(first, firstSamples.engine, firstSamples.raw);
            record(later, laterSamples.engine, laterSamples.raw);
          }
          log(`${preset} ${ending} round ${round}${round === 0 ? ' (warm-up)' : ''}: first ${firstSamples.engine.wallMs.toFixed(0)} ms ÷ ${firstSamples.raw.wallMs.toFixed(0)} ms, later ${laterSamples.engine.wallMs.toFixed(0)} ms ÷ ${laterSamples.raw.wallMs.toFixed(0)} ms; changes the first open read back: ${changesRead}`);
          await rm(dirs.engine, { recursive: true, force: true });
          await rm(dirs.raw, { recursive: true, force: true });
        }
        comparisons.push(first, later);
        await rm(source, { recursive: true, force: true });
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return { bench: 'first-open', settings: { docs: DOCS, perCall: CALL, rounds, presets: Object.keys(PRESETS), endings: ['closed', 'killed'] }, results: comparisons.map(summarize) };
}

// the killed writer: `--write <dir> <preset> <docs>`, tells its parent when the last write resolved
if (process.argv[2] === '--write') {
  const [dir, preset, docs] = process.argv.slice(3);
  await writeStore(dir, preset as PresetName, Number(docs));
  process.send?.('written');
  setInterval(() => undefined, 60_000); // stay alive (the store open) until the SIGKILL
}
