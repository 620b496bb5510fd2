/**
 * Shared helpers for every bench (pipeline today, encryption and others later): timing,
 * medians, paired ratios, aims, the printed table and the JSON result file.
 *
 * Rules every bench follows:
 * - the engine and its baseline run side by side in the same process, on fresh databases,
 *   so machine noise hits both sides alike;
 * - a warm-up round is run and thrown away (JIT, adapter loading, first-open costs);
 * - several rounds are run and the median is kept, so one slow round does not decide.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { prng } from './items.js';

/** The `--import` that runs a bench's TypeScript as tsc ships it (bench/strip-types/register.mjs): for a bench's child processes. */
export const STRIP_TYPES = new URL('./strip-types/register.mjs', import.meta.url).href;

/**
 * One timed run: wall-clock milliseconds (what a caller waits; the ratio the aims are about)
 * and process CPU milliseconds (all threads, so leveldb's worker threads count). CPU time
 * hardly moves when other programs compete for the cores, so where the wall ratio and the CPU
 * ratio agree the number can be trusted; where they differ, the machine was busy.
 */
export interface Sample {
  wallMs: number;
  cpuMs: number;
}

export async function time(fn: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

export function addSamples(a: Sample, b: Sample): Sample {
  return { wallMs: a.wallMs + b.wallMs, cpuMs: a.cpuMs + b.cpuMs };
}

// `npm run bench` runs without --expose-gc (bench/strip-types), so gc is switched on at run time, for a bench
// that wants to free a large heap between phases. Never right before a timed step: see measure.
setFlagsFromString('--expose-gc');
const gcFn = runInNewContext('gc') as (() => void) | undefined;

export function collectGarbage(): void {
  gcFn?.();
}

/**
 * One timed step. It used to force a full garbage collection first, so that one side would not
 * pay for the other's garbage; but a forced collection makes the next second or more of work
 * slower (raw bulkDocs of 2,500 documents on memory: ≈ 70 µs of CPU per document right after
 * `gc()`, even after a 1 s pause, ≈ 30 µs without), a fixed cost of ≈ 0.1 s billed to every
 * side, which pulled every ratio toward 1 and flattered the slower side. The order of the sides
 * rotates instead (rotate, interleaved), so garbage left by one side lands on each in turn.
 */
export async function measure(fn: () => Promise<unknown>): Promise<Sample> {
  return time(fn);
}

/**
 * Runs each side in `blocks` slices, alternating sides slice by slice (the order flipping every
 * slice, starting from `round`), and sums each side's samples. A slow spell of the machine
 * (another program, a leveldb compaction, a GC) then lands on both sides instead of one; use
 * it for any step made of many small operations (lookups, serial writes).
 */
export function interleaved<K extends string>(
  sides: Record<K, (block: number) => Promise<unknown>>,
  blocks: number,
  round: number,
): Promise<Record<K, Sample>> {
  // each block is one operation of `alternate`, one a turn: a side gets its block's index
  return alternate(sides, blocks, round, () => 1);
}

/**
 * interleaved for a step of `items` operations a side, in slices of random length: each turn, in
 * an order that rotates, every side runs its next slice — between a quarter and seven quarters of
 * items ÷ blocks, drawn anew per side and per turn (seeded by `round`, so a run can be repeated).
 * Each side gets `(from, to)`, the operations of its slice.
 *
 * Why random lengths: a young-generation collection (≈ 5 of 4–8 ms in 1,000 serial writes) runs
 * in whichever slice fills the young generation, and with slices of one length the sides' shares
 * of it repeat from one collection to the next — the fill point moves by the same amount each
 * turn. Traced per slice (memory, serial creates beside raw `put`), a round gave one side every
 * collection (33 ms and 0 ms; ratio 1.98×), the next the other (0 and 30 ms; 0.84×), and the
 * rounds' ratios fell in two groups around 1.0 and 1.5. With random lengths the fill point falls
 * anywhere in a turn, so each side collects in proportion to what it allocates.
 */
export function interleavedSpans<K extends string>(
  sides: Record<K, (from: number, to: number) => Promise<unknown>>,
  items: number,
  blocks: number,
  round: number,
): Promise<Record<K, Sample>> {
  const random = prng(0x5eed + round);
  const mean = items / blocks;
  return alternate(sides, items, round, () => Math.max(1, Math.round(mean * (0.25 + 1.5 * random()))));
}

/**
 * interleaved and interleavedSpans: each turn, in an order rotating with `round + turn`, every
 * side not done runs its next `span()` of its `items` operations, timed; each side's samples summed.
 */
async function alternate<K extends string>(
  sides: Record<K, (from: number, to: number) => Promise<unknown>>,
  items: number,
  round: number,
  span: () => number,
): Promise<Record<K, Sample>> {
  const names = Object.keys(sides) as K[];
  const totals = Object.fromEntries(names.map((n) => [n, { wallMs: 0, cpuMs: 0 }])) as Record<K, Sample>;
  const done = Object.fromEntries(names.map((n) => [n, 0])) as Record<K, number>;
  for (let turn = 0; names.some((n) => done[n] < items); turn++) {
    for (const name of rotate(names, round + turn)) {
      const from = done[name];
      if (from >= items) continue;
      const to = Math.min(items, from + span());
      done[name] = to;
      totals[name] = addSamples(totals[name], await measure(() => sides[name](from, to)));
    }
  }
  return totals;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rotates a list by `by` places: used to alternate which side runs first in each round. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const n = items.length;
  const k = ((by % n) + n) % n;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * A target printed next to a ratio. A binding aim is the promise (MISSED fails
 * `--strict`); an informational one is shown for context and never fails anything.
 */
export interface Aim {
  max: number;
  binding: boolean;
  /** which median the aim judges: wall-clock (the default) or process CPU time (steadier on a busy machine) */
  on?: 'wall' | 'cpu';
}

/** One engine-vs-baseline pairing, filled round by round (index i of both arrays = round i). */
export interface Comparison {
  /** what is measured, e.g. "bulk insert 10,000" */
  name: string;
  adapter: string;
  engine: string;
  baseline: string;
  engineSamples: Sample[];
  baselineSamples: Sample[];
  aim?: Aim;
}

export type AimStatus = 'ok' | 'MISSED' | 'info: within' | 'info: over' | '';

export interface ComparisonResult {
  name: string;
  adapter: string;
  engine: string;
  baseline: string;
  rounds: number;
  engineMedianMs: number;
  baselineMedianMs: number;
  /** median of the per-round wall-clock ratios (each round's engine time over the baseline run beside it) */
  ratio: number;
  roundRatios: number[];
  /** the same from process CPU time: a cross-check that noise from other programs hardly moves */
  cpuRatio: number;
  cpuRoundRatios: number[];
  /** min / median / max of the per-round ratios, wall and CPU */
  ratioRange: [number, number, number];
  cpuRatioRange: [number, number, number];
  aim: Aim | null;
  status: AimStatus;
}

export function comparison(fields: Omit<Comparison, 'engineSamples' | 'baselineSamples'>): Comparison {
  return { ...fields, engineSamples: [], baselineSamples: [] };
}

/** Records one round: the engine's sample and the sample of the baseline run beside it. */
export function record(c: Comparison, engine: Sample, baseline: Sample): void {
  c.engineSamples.push(engine);
  c.baselineSamples.push(baseline);
}

/**
 * Ratios are paired per round, then the median taken: a round where the whole machine was slow
 * makes both sides slow, so its ratio stays honest even when its absolute times do not.
 */
export function summarize(c: Comparison): ComparisonResult {
  if (c.engineSamples.length !== c.baselineSamples.length || c.engineSamples.length === 0) {
    throw new Error(`"${c.name}" (${c.adapter}) has ${c.engineSamples.length} engine and ${c.baselineSamples.length} baseline samples.`);
  }
  const roundRatios = c.engineSamples.map((s, i) => s.wallMs / c.baselineSamples[i].wallMs);
  const cpuRoundRatios = c.engineSamples.map((s, i) => s.cpuMs / c.baselineSamples[i].cpuMs);
  const ratio = median(roundRatios);
  const cpuRatio = median(cpuRoundRatios);
  let status: AimStatus = '';
  if (c.aim) {
    const within = (c.aim.on === 'cpu' ? cpuRatio : ratio) <= c.aim.max;
    status = c.aim.binding ? (within ? 'ok' : 'MISSED') : within ? 'info: within' : 'info: over';
  }
  return {
    name: c.name,
    adapter: c.adapter,
    engine: c.engine,
    baseline: c.baseline,
    rounds: c.engineSamples.length,
    engineMedianMs: round2(median(c.engineSamples.map((s) => s.wallMs))),
    baselineMedianMs: round2(median(c.baselineSamples.map((s) => s.wallMs))),
    ratio: round2(ratio),
    roundRatios: roundRatios.map(round2),
    cpuRatio: round2(cpuRatio),
    cpuRoundRatios: cpuRoundRatios.map(round2),
    ratioRange: spread(roundRatios),
    cpuRatioRange: spread(cpuRoundRatios),
    aim: c.aim ?? null,
    status,
  };
}

function spread(values: readonly number[]): [number, number, number] {
  return [round2(Math.min(...values)), round2(median(values)), round2(Math.max(...values))];
}

/** "1.10 / 1.20 / 1.40": min / median / max of the rounds (one figure when there was one round). */
export function formatRange([min, mid, max]: readonly number[]): string {
  return min === max ? mid.toFixed(2) : `${min.toFixed(2)} / ${mid.toFixed(2)} / ${max.toFixed(2)}`;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** True when a binding aim was missed (what `--strict` turns into exit code 1). */
export function anyMissed(results: readonly ComparisonResult[]): boolean {
  return results.some((r) => r.status === 'MISSED');
}

/** A plain-text table: one row per comparison, aims and their status beside the ratio. */
export function formatTable(results: readonly ComparisonResult[]): string {
  const header = ['adapter', 'comparison', 'engine', 'baseline', 'engine ms', 'baseline ms', 'ratio (min/med/max)', 'cpu ratio (min/med/max)', 'aim', 'status'];
  const rows = results.map((r) => [
    r.adapter,
    r.name,
    r.engine,
    r.baseline,
    r.engineMedianMs.toFixed(1),
    r.baselineMedianMs.toFixed(1),
    `${formatRange(r.ratioRange)}×`,
    `${formatRange(r.cpuRatioRange)}×`,
    r.aim ? `≤ ${r.aim.max}×${r.aim.on === 'cpu' ? ' cpu' : ''}${r.aim.binding ? '' : ' (info)'}` : '',
    r.status,
  ]);
  const numeric = new Set([4, 5, 6, 7]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** What bench/run.ts hands every bench: the rounds to run and where progress lines go (the table is printed by run.ts). */
export interface BenchOptions {
  rounds: number;
  log: (line: string) => void;
}

/** What a bench hands back to bench/run.ts. */
export interface BenchReport {
  bench: string;
  /** settings worth recording beside the numbers (sizes, rounds, adapters) */
  settings: Record<string, unknown>;
  results: ComparisonResult[];
}

/**
 * The 1-minute load average, sampled before and after a bench: above the core count, other
 * programs were competing for the CPU and wall-clock ratios are noisy (see cpu ratio).
 */
export interface LoadWatch {
  before: number;
  after: number;
  busy: boolean;
}

export function watchLoad(): () => LoadWatch {
  const before = loadavg()[0];
  return () => {
    const after = loadavg()[0];
    return { before: round2(before), after: round2(after), busy: Math.max(before, after) > cpus().length };
  };
}

/** Writes `bench/results/<bench>.json`: kept in git, so keep it stable and readable. */
export async function writeResults(file: string, report: BenchReport, load: LoadWatch): Promise<void> {
  const payload = {
    bench: report.bench,
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    loadAverage1m: { before: load.before, after: load.after },
    settings: report.settings,
    results: report.results,
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(payload, null, 2)}\n`);
}
