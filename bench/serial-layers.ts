/**
 * bench/serial-layers: what bounds a serial `createDoc` (issue #29's serial aim, ≤ 1.3× a raw
 * put). bench/pipeline times a fresh stack's first thousand writes; this one times the steady
 * state, layer by layer, so the gap can be put where it is. Per adapter, on stacks and raw
 * databases that already took WARM writes, the sides alternate slice by slice
 * (harness.interleaved), SERIAL writes each per round:
 *   - baseline: raw `db.put` of the stored document (pouchdb-core, the same adapter);
 *   - raw `bulkDocs([doc])`: the storage call the engine makes for one document;
 *   - the kernel alone (no plugin) creating an Item without its foreign key: ids, drafts, the
 *     write parts (key claim, class counter, class names), group commit, the write lock;
 *   - the kernel with the validation plugin only: + defaults, types, bounds, the foreign key;
 *   - the browser preset: + every other plugin's taps (domains, triggers, encryption, …);
 *   - the browser preset on a store whose bulkDocs answers without storing: the engine's own
 *     CPU per write, storage left out;
 *   - the floor sketch (bench/minimal-write.ts): a draft, one tapable validate tap, bulkDocs —
 *     the least a write path under the design card does, so the engine's cost above it is its own.
 * The memory adapter's put is the cheapest, so its ratios are the widest.
 *
 * `npm run bench:run -- serial-layers --rounds=3`
 */
import type { ClientStack } from '../index.js';
import { browser } from '../plugins.config.js';
import { validationPlugin } from '../plugins/validation/index.js';
import { comparison, interleaved, record, summarize, type BenchOptions, type BenchReport, type Comparison } from './harness.js';
import { ITEM_SCHEMA } from './items.js';
import { minimalWriter } from './minimal-write.js';
import { dropRaw, engineInputs, itemAttributeList, openEngine, openRaw, rawDocs, type Place, type RawDb } from './pipeline-sides.js';
import { rawDatabase } from '../storage/raw-database.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERIAL = Number(process.env.SERIAL_LAYERS ?? 1_500);
const WARM = 300;
/** Slices of 20 writes per side (bench/pipeline's BLOCKS says why not hundreds: collections fall in step with long slices). */
const BLOCKS = 75;

const NO_FK = Object.fromEntries(Object.entries(ITEM_SCHEMA).filter(([name]) => name !== 'category'));

type Writer = (i: number) => Promise<unknown>;

async function engineSide(place: Place, plugins: readonly unknown[], withKey: boolean): Promise<{ write: Writer; stack: ClientStack }> {
  const { stack } = await openEngine(place, false, { plugins, schema: withKey ? ITEM_SCHEMA : NO_FK });
  const inputs = engineInputs(itemAttributeList(WARM + SERIAL * 8, 0, 29)).map((input) => {
    if (withKey) return input;
    const { category: _category, ...rest } = input;
    return rest;
  });
  return { stack, write: (i) => stack.createDoc(inputs[i]) };
}

/** The browser preset on a store whose bulkDocs answers without storing: the engine's CPU alone. */
async function computeSide(place: Place): Promise<{ write: Writer; stack: ClientStack }> {
  const side = await engineSide(place, browser, true);
  const db = rawDatabase(side.stack) as unknown as RawDb;
  let written = 0;
  db.bulkDocs = ((docs: { _id: string }[]) => Promise.resolve(docs.map((doc) => ({ ok: true, id: doc._id, rev: `1-${(++written).toString(16).padStart(32, '0')}` })))) as never;
  return side;
}

function minimalSide(db: RawDb): Writer {
  const write = minimalWriter(db);
  const inputs = engineInputs(itemAttributeList(WARM + SERIAL * 8, 0, 29));
  return (i) => write(inputs[i]);
}

function rawSide(db: RawDb, call: 'put' | 'bulk1'): Writer {
  const docs = rawDocs(itemAttributeList(WARM + SERIAL * 8, 0, 29));
  return call === 'put' ? (i) => db.put(docs[i]) : (i) => db.bulkDocs([docs[i]]);
}

export async function runSerialLayers({ rounds, log }: BenchOptions): Promise<BenchReport> {
  const results = [];
  for (const adapter of ['memory', 'leveldb'] as const) {
    const place: Place = { adapter, dir: await mkdtemp(join(tmpdir(), 'docstack-serial-layers-')) };
    const putDb = await openRaw(place);
    const bulkDb = await openRaw(place);
    const minimalDb = await openRaw(place);
    const sides: Record<string, Writer> = { put: rawSide(putDb, 'put'), bulk1: rawSide(bulkDb, 'bulk1'), minimal: minimalSide(minimalDb) };
    const stacks: ClientStack[] = [];
    for (const [name, plugins, withKey] of [
      ['kernel', [], false],
      ['validation', [validationPlugin], true],
      ['browser', browser, true],
    ] as const) {
      const side = await engineSide(place, plugins, withKey);
      sides[name] = side.write;
      stacks.push(side.stack);
    }
    const compute = await computeSide(place);
    sides.compute = compute.write;
    stacks.push(compute.stack);
    // steady state: every side's code warm, its stack's hooks compiled, its caches filled
    for (const write of Object.values(sides)) for (let i = 0; i < WARM; i++) await write(i);
    const rows: Record<string, Comparison> = {
      bulk1: comparison({ name: `serial ×${SERIAL}, steady state`, adapter, engine: 'raw bulkDocs([doc])', baseline: 'raw db.put' }),
      kernel: comparison({ name: `serial ×${SERIAL}, steady state`, adapter, engine: 'kernel alone, no foreign key', baseline: 'raw db.put' }),
      validation: comparison({ name: `serial ×${SERIAL}, steady state`, adapter, engine: 'kernel + validation (foreign key)', baseline: 'raw db.put' }),
      browser: comparison({ name: `serial ×${SERIAL}, steady state`, adapter, engine: 'browser preset (stack.createDoc)', baseline: 'raw db.put' }),
      compute: comparison({ name: `serial ×${SERIAL}, steady state`, adapter, engine: 'browser preset, bulkDocs answered in memory (its own CPU)', baseline: 'raw db.put' }),
      minimal: comparison({ name: `serial ×${SERIAL}, steady state`, adapter, engine: 'floor sketch: draft, validate tap, bulkDocs', baseline: 'raw db.put' }),
    };
    let next = WARM;
    for (let round = 0; round <= rounds; round++) {
      const start = next;
      next += SERIAL;
      const per = SERIAL / BLOCKS;
      const samples = await interleaved(
        Object.fromEntries(Object.entries(sides).map(([name, write]) => [name, async (block: number) => {
          for (let i = start + block * per; i < start + (block + 1) * per; i++) await write(i);
        }])),
        BLOCKS,
        round,
      );
      if (round === 0) continue; // warm-up round
      for (const [name, row] of Object.entries(rows)) record(row, samples[name], samples.put);
      log(`${adapter} round ${round}: µs CPU per write ${Object.entries(samples).map(([name, s]) => `${name} ${((s.cpuMs * 1000) / SERIAL).toFixed(0)}`).join(', ')}`);
    }
    results.push(...Object.values(rows).map(summarize));
    for (const stack of stacks) await stack.close();
    await dropRaw(putDb);
    await dropRaw(bulkDb);
    await dropRaw(minimalDb);
  }
  return { bench: 'serial-layers', settings: { serial: SERIAL, warm: WARM, blocks: BLOCKS, rounds }, results };
}
