/**
 * The crash proof: a child process runs 10-document transactions on leveldb and is killed with
 * SIGKILL at a random moment, RUNS times. After each reopen (recovery runs first) every
 * transaction is wholly there or wholly gone, every committed one is there, the counter the
 * transactions update agrees with the items, and the primary-key index agrees with the documents.
 * TX_CRASH_RUNS=100 for the full count; the default, 12, takes ~15 s.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { bundled } from '../../helpers/bundled.js';
import { tempDir, uniqueName } from '../../helpers/stack.js';
/** as in crash-child.ts (importing it would run it) */
const COUNTER_ID = 'Counter-main';

const RUNS = Number(process.env.TX_CRASH_RUNS ?? 12);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

interface Report {
  items: number;
  batches: string[];
  partial: number;
  counterOk: boolean;
  keysOk: boolean;
  recovery: 'rolled-forward' | 'rolled-back' | null;
}

/** One child: its report on open, the batches it began and committed before the kill. */
function runChild(script: string, dataDir: string, name: string, run: number, lastBegun: string): Promise<{ report: Report; begun: string[]; committed: string[] }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, dataDir, name, String(run), lastBegun], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let report: Report | null = null;
    proc.stderr.on('data', (d) => (err += d));
    proc.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('report '));
      if (!report && line) {
        report = JSON.parse(line.slice('report '.length));
        setTimeout(() => proc.kill('SIGKILL'), 20 + Math.random() * 400); // some time into the writes
      }
    });
    proc.on('exit', () => {
      if (!report) return reject(new Error(`the child died before reporting: ${err}`));
      const lines = out.split('\n');
      const pick = (word: string) => lines.filter((l) => l.startsWith(`${word} `)).map((l) => l.slice(word.length + 1));
      resolve({ report, begun: pick('begin'), committed: pick('commit') });
    });
  });
}

describe('transactions survive SIGKILL', () => {
  it(`leaves every transaction whole or gone across ${RUNS} kills`, async () => {
    const dataDir = await tempDir();
    const name = uniqueName('tx-crash');
    const script = await bundled(child); // node starts a bundle ~1.4 s sooner than `--import tsx`: 13 starts
    const setup = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    await Class.create(setup, 'Item', 'class', '', { k: { type: 'string', primaryKey: true }, batch: { type: 'string' } });
    await Class.create(setup, 'Counter', 'class', '', { value: { type: 'integer' } });
    await setup.createDoc({ '~class': 'Counter', value: 0 }, { id: COUNTER_ID });
    await setup.close();

    const committed = new Set<string>();
    const begun = new Set<string>();
    const outcomes = { 'rolled-forward': 0, 'rolled-back': 0 };
    let lastBegun = '-';
    let partial = 0;
    for (let run = 0; run <= RUNS; run++) {
      // the last child only reports on what the previous kill left
      const result = await runChild(script, dataDir, name, run, lastBegun);
      const { report } = result;
      partial += report.partial;
      if (report.recovery) outcomes[report.recovery]++;
      expect(report, `after kill ${run}`).toMatchObject({ partial: 0, counterOk: true, keysOk: true });
      for (const batch of committed) expect(report.batches, `committed ${batch} is kept`).toContain(batch);
      if (run === RUNS) {
        const present = new Set(report.batches);
        const rolledBack = [...begun].filter((b) => !present.has(b)).length;
        console.log(`tx crash test: runs ${RUNS}, transactions begun ${begun.size}, committed ${present.size}, rolled back ${rolledBack}, partial ${partial}; recovery on open: rolled forward ${outcomes['rolled-forward']}, rolled back ${outcomes['rolled-back']}`);
        break;
      }
      result.begun.forEach((b) => begun.add(b));
      result.committed.forEach((b) => committed.add(b));
      lastBegun = result.begun.at(-1) ?? '-';
    }
    expect(partial).toBe(0);
  }, 30_000 + RUNS * 5_000); // ~1 s a kill alone, ~3 s beside other test files
});
