/**
 * bench/serial-ab: is a change to the write path faster? Two copies of the engine in one
 * process — A, from another checkout of this repository (a git worktree), and B, this one —
 * each creating Items serially on its own fresh stack, round after round, with a raw PouchDB
 * `put` beside them; the three sides alternate in 50 slices of 20 writes, their order rotating,
 * so a slow spell of this shared machine lands on all three. Per round: A ÷ put, B ÷ put, and
 * B ÷ A; the medians of the rounds are printed (the first two rounds are warm-up).
 *
 *   git worktree add /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   node --import ./bench/strip-types/register.mjs bench/serial-ab.ts /tmp/base [memory|leveldb] [rounds]
 *
 * Why a tool of its own: separate runs of bench/pipeline on the same code differ by ±0.2× in
 * their serial medians (docs/benchmarks.md), far more than most changes move them. Here both
 * copies run in the same slices: the same code against itself (A/A) gave B ÷ A 0.993 and 1.019
 * over 60 rounds, 1.010 and 1.016 over 200 — a change under ≈ 3 % of a serial create is not told
 * apart from noise even so. Not a judged bench: it prints, it records nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleaved, median } from './harness.js';
import * as B from './pipeline-sides.js';

type Sides = typeof B;
const SLICES = 50;
const PER_SLICE = 20;
const WRITES = SLICES * PER_SLICE;
const WARM_WRITES = 4_000;
const WARM_ROUNDS = 2;

async function main(): Promise<void> {
  const [base, adapterArg = 'memory', roundsArg = '60'] = process.argv.slice(2);
  if (!base) throw new Error('usage: serial-ab.ts <another checkout> [memory|leveldb] [rounds]');
  const adapter = adapterArg === 'leveldb' ? 'leveldb' : 'memory';
  const rounds = Number(roundsArg);
  if (!Number.isInteger(rounds) || rounds <= WARM_ROUNDS) throw new Error(`rounds must be a whole number > ${WARM_ROUNDS}`);
  const A = (await import(pathToFileURL(join(resolve(base), 'bench/pipeline-sides.ts')).href)) as Sides;
  const place: B.Place = { adapter, dir: await mkdtemp(join(tmpdir(), 'docstack-serial-ab-')) };
  try {
    // each copy's code warm before the rounds (V8 optimizes it over its first thousands of writes)
    for (const side of [A, B]) {
      const engine = await side.openEngine(place);
      for (const input of side.engineInputs(side.itemAttributeList(WARM_WRITES, 500_000, 1))) await engine.stack.createDoc(input as never);
      await side.dropEngine(engine, place);
    }
    const ratios = { a: [] as number[], b: [] as number[], ba: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      const attributes = B.itemAttributeList(WRITES, round * WRITES, round);
      const docs = B.rawDocs(attributes);
      const raw = await B.openRaw(place);
      const engineA = await A.openEngine(place);
      const engineB = await B.openEngine(place);
      const inputsA = A.engineInputs(attributes);
      const inputsB = B.engineInputs(attributes);
      const slice = (write: (i: number) => Promise<unknown>) => async (block: number) => {
        for (let i = block * PER_SLICE; i < (block + 1) * PER_SLICE; i++) await write(i);
      };
      const spent = await interleaved(
        {
          put: slice((i) => raw.put(docs[i])),
          a: slice((i) => engineA.stack.createDoc(inputsA[i] as never)),
          b: slice((i) => engineB.stack.createDoc(inputsB[i] as never)),
        },
        SLICES,
        round,
      );
      await B.dropRaw(raw);
      await A.dropEngine(engineA, place);
      await B.dropEngine(engineB, place);
      if (round < WARM_ROUNDS) continue;
      ratios.a.push(spent.a.cpuMs / spent.put.cpuMs);
      ratios.b.push(spent.b.cpuMs / spent.put.cpuMs);
      ratios.ba.push(spent.b.cpuMs / spent.a.cpuMs);
    }
    const f = (n: number) => n.toFixed(3);
    console.log(`serial-ab (${adapter}, ${rounds - WARM_ROUNDS} rounds of ${WRITES} writes a side, CPU): A ÷ put ${f(median(ratios.a))}, B ÷ put ${f(median(ratios.b))}, B ÷ A ${f(median(ratios.ba))} (rounds: ${f(Math.min(...ratios.ba))} – ${f(Math.max(...ratios.ba))})`);
  } finally {
    await rm(place.dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
