/**
 * bench/serial-profile: where a serial create's CPU goes, side by side with a raw `put` and the
 * floor sketch, in the same slices bench/pipeline times them in (not a timing: bench/pipeline has
 * the judged ratios). Per step, on fresh stores, the three sides alternate in slices of random
 * length (5–35 writes, harness.ts interleavedSpans) under one CPU profile; each profile sample is billed to the side whose
 * slice was running at its time, so a function the sides share (pouchdb-core, the adapter,
 * memdown, the garbage collector) is shown per side too — what a profile of the engine alone
 * cannot tell: whether the adapter's own work costs more when the engine writes.
 *
 *   node --import ./bench/strip-types/register.mjs bench/serial-profile.ts [memory|leveldb] [--by=function] [--steps=20] [--top=40]
 *
 * `--touch=KB`: the sketch's column becomes a raw `put` followed by a read of KB kilobytes (one
 * load per cache line of a buffer of its own): what the adapter's own work costs when each write
 * also walks that much memory — how sensitive the shared code is to what runs beside it.
 *
 * Prints each side's process CPU per write (all threads: the collector's and the compiler's
 * included) and its sampled main-thread time per write, then the `--top` entries (files, or
 * functions with `--by=function`) whose time per write is most above the `put`'s. Sampling costs
 * each side alike but is not free: the ratios read here are above bench/pipeline's.
 */
import { Session } from 'node:inspector/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minimalWriter } from './minimal-write.js';
import { interleavedSpans } from './harness.js';
import { BLOCKS } from './pipeline.js';
import { billToSlices, type CpuProfile, type Slice } from './profile-slices.js';
import { dropEngine, dropRaw, engineInputs, itemAttributeList, openEngine, openRaw, rawDocs, type AdapterName, type Place } from './pipeline-sides.js';

const SIDES = ['put', 'sketch', 'engine'] as const;
type Side = (typeof SIDES)[number];
/** Writes a side makes per step (one fresh store each), as bench/pipeline's serial step. */
const PER_STEP = 1_000;
/** Steps before the profile starts: V8 optimizes the write path over the first several thousand writes. */
const WARM_STEPS = 8;
/** Microseconds between samples. */
const SAMPLING_US = 100;

interface Options {
  adapter: AdapterName;
  byFunction: boolean;
  steps: number;
  top: number;
  /** kilobytes the sketch's column reads after a raw put instead (0: the floor sketch) */
  touchKb: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { adapter: 'memory', byFunction: false, steps: 20, top: 40, touchKb: 0 };
  for (const arg of argv) {
    if (arg === 'memory' || arg === 'leveldb') options.adapter = arg;
    else if (arg === '--by=function') options.byFunction = true;
    else if (arg === '--by=file') options.byFunction = false;
    else if (/^--steps=\d+$/.test(arg)) options.steps = Number(arg.slice(8));
    else if (/^--top=\d+$/.test(arg)) options.top = Number(arg.slice(6));
    else if (/^--touch=\d+$/.test(arg)) options.touchKb = Number(arg.slice(8));
    else throw new Error(`Unknown argument ${arg}: memory|leveldb, --by=file|function, --steps=N, --top=N, --touch=KB.`);
  }
  return options;
}

/** The inspector's profile clock: microseconds of the monotonic clock process.hrtime reads. */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** A read of every cache line of `buffer` (--touch): its sum, so the reads are not optimized away. */
function touch(buffer: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < buffer.length; i += 8) sum += buffer[i]; // 8 doubles: one 64-byte line
  return sum;
}

/**
 * One step: fresh stores for the three sides, PER_STEP writes each in bench/pipeline's slices
 * (harness.ts interleavedSpans: BLOCKS slices of random length, the order rotating every turn).
 * With `slices`, each slice's span is noted and each side's process CPU added to `cpu`.
 */
async function step(place: Place, seed: number, slices: Slice<Side>[] | null, cpu: Record<Side, number>, touched: Float64Array | null): Promise<void> {
  const attributes = itemAttributeList(PER_STEP, 0, seed);
  const docs = rawDocs(attributes);
  const inputs = engineInputs(attributes);
  const raw = await openRaw(place);
  const floorDb = await openRaw(place);
  const floor = minimalWriter(floorDb);
  const engine = await openEngine(place);
  const write: Record<Side, (i: number) => Promise<unknown>> = {
    put: (i) => raw.put(docs[i]),
    sketch: touched ? (i) => floorDb.put(docs[i]).then(() => touch(touched)) : (i) => floor(inputs[i]),
    engine: (i) => engine.stack.createDoc(inputs[i]),
  };
  // each side's slice, its span noted for the profile's samples
  const slice = (side: Side) => async (from: number, to: number) => {
    const start = nowUs();
    for (let i = from; i < to; i++) await write[side](i);
    slices?.push([start, nowUs(), side]);
  };
  const spent = await interleavedSpans({ put: slice('put'), sketch: slice('sketch'), engine: slice('engine') }, PER_STEP, BLOCKS, seed);
  if (slices) for (const side of SIDES) cpu[side] += spent[side].cpuMs * 1000;
  await dropRaw(raw);
  await dropRaw(floorDb);
  await dropEngine(engine, place);
}

const perWrite = (us: number, writes: number): string => (us / writes).toFixed(2).padStart(7);

async function main(options: Options): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'docstack-serial-profile-'));
  const place: Place = { adapter: options.adapter, dir };
  const cpu: Record<Side, number> = { put: 0, sketch: 0, engine: 0 };
  const slices: Slice<Side>[] = [];
  const touched = options.touchKb > 0 ? new Float64Array((options.touchKb * 1024) / 8) : null;
  try {
    for (let s = 0; s < WARM_STEPS; s++) await step(place, 1 + s, null, cpu, touched);
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
    await session.post('Profiler.start');
    for (let s = 0; s < options.steps; s++) await step(place, 100 + s, slices, cpu, touched);
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    session.disconnect();
    const billed = billToSlices(profile, slices, SIDES, (frame) => {
      const file = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(bench|kernel|engine|storage|plugins|contracts|kit)\//, '$1/');
      return options.byFunction ? `${file}:${frame.functionName || '(anonymous)'}` : file || frame.functionName;
    }, SAMPLING_US);
    const writes = options.steps * PER_STEP;
    const total = (side: Side) => [...billed[side].values()].reduce((a, b) => a + b, 0);
    const sketch = touched ? `the sketch's column: put, then ${options.touchKb} kB read` : 'floor sketch';
    console.log(`serial-profile (${options.adapter}, ${options.steps} steps of ${PER_STEP} writes a side; ${sketch}), µs per write`);
    console.log(`  process CPU: ${SIDES.map((s) => `${s} ${perWrite(cpu[s], writes).trim()}`).join(', ')}; engine ÷ put ${(cpu.engine / cpu.put).toFixed(3)}`);
    console.log(`  sampled:     ${SIDES.map((s) => `${s} ${perWrite(total(s), writes).trim()}`).join(', ')}`);
    const keys = new Set(SIDES.flatMap((s) => [...billed[s].keys()]));
    const rows = [...keys].map((key) => ({ key, spent: SIDES.map((s) => billed[s].get(key) ?? 0) }));
    rows.sort((a, b) => b.spent[2] - b.spent[0] - (a.spent[2] - a.spent[0]));
    console.log(`\n${'put'.padStart(7)}${'sketch'.padStart(7)}${'engine'.padStart(7)}  (most above put first)`);
    for (const { key, spent } of rows.slice(0, options.top)) console.log(`${spent.map((us) => perWrite(us, writes)).join('')}  ${key}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main(parseOptions(process.argv.slice(2)));
