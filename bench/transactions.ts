/**
 * bench/transactions: what a transaction costs per document over single writes.
 *
 * Per adapter (memory, leveldb) and per round, on two fresh stacks (browser preset): TXS
 * transactions of PER_TX `tx.createDoc` each, against TXS × PER_TX serial `stack.createDoc`, the
 * same documents (a primary key, so both sides claim keys). Both are 5,000 documents, so the
 * ratio is the ratio per document. The sides alternate in BLOCKS slices (harness interleaved).
 * A transaction pays a dry-run check per write, two journal writes and one bulkDocs per commit;
 * a single write pays one check and one bulkDocs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Class, createStack, type NewDoc } from '../index.js';
import { browser } from '../plugins.config.js';
import { comparison, interleaved, record, summarize, type BenchReport, type Comparison, type ComparisonResult, type BenchOptions } from './harness.js';

type AdapterName = 'memory' | 'leveldb';

const TXS = 1_000;
const PER_TX = 5;
const BLOCKS = 10;
const WARMUP_SCALE = 0.2;
const ADAPTERS: readonly AdapterName[] = ['memory', 'leveldb'];
/** The aim: at most 2× per document, binding on leveldb (the on-disk store users run). */
const AIM = 2;

let counter = 0;

async function openStack(adapter: AdapterName, dir: string) {
  const stack = await createStack({ name: `tx-bench-${process.pid}-${++counter}`, adapter, dataDir: dir, plugins: browser });
  await Class.create(stack, 'Item', 'class', '', {
    code: { type: 'string', primaryKey: true, maxLength: 24 },
    label: { type: 'string', maxLength: 80 },
    quantity: { type: 'integer', min: 0 },
  });
  return stack;
}

const item = (side: string, round: number, n: number): NewDoc => ({ '~class': 'Item', code: `${side}-${round}-${n}`, label: `Item ${n}`, quantity: n % 100 });

async function runRound(adapter: AdapterName, dir: string, txs: number, round: number, into: Comparison | null): Promise<void> {
  const single = await openStack(adapter, dir);
  const txStack = await openStack(adapter, dir);
  const perBlock = txs / BLOCKS;
  const samples = await interleaved(
    {
      single: async (block) => {
        for (let n = block * perBlock * PER_TX; n < (block + 1) * perBlock * PER_TX; n++) await single.createDoc(item('s', round, n));
      },
      tx: async (block) => {
        for (let t = block * perBlock; t < (block + 1) * perBlock; t++) {
          await txStack.transaction(async (tx) => {
            for (let k = 0; k < PER_TX; k++) await tx.createDoc(item('t', round, t * PER_TX + k));
          });
        }
      },
    },
    BLOCKS,
    round,
  );
  const counts = [(await single.findDocuments('Item')).length, (await txStack.findDocuments('Item')).length];
  if (counts[0] !== txs * PER_TX || counts[1] !== txs * PER_TX) throw new Error(`a side stored ${counts.join(' / ')} documents, not ${txs * PER_TX}`);
  await single.close();
  await txStack.close();
  if (into) record(into, samples.tx, samples.single);
}

export async function runTransactions(options: BenchOptions): Promise<BenchReport> {
  const { rounds, log } = options;
  const dir = await mkdtemp(join(tmpdir(), 'docstack-bench-tx-'));
  const results: ComparisonResult[] = [];
  try {
    for (const adapter of ADAPTERS) {
      const c = comparison({
        name: `${TXS.toLocaleString('en')} tx × ${PER_TX} docs`,
        adapter,
        engine: 'stack.transaction',
        baseline: `${(TXS * PER_TX).toLocaleString('en')} × stack.createDoc`,
        aim: { max: AIM, binding: adapter === 'leveldb' },
      });
      log(`transactions/${adapter}: warm-up`);
      await runRound(adapter, dir, TXS * WARMUP_SCALE, 0, null);
      for (let round = 1; round <= rounds; round++) {
        log(`transactions/${adapter}: round ${round}/${rounds}`);
        await runRound(adapter, dir, TXS, round, c);
      }
      results.push(summarize(c));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { bench: 'transactions', settings: { adapters: ADAPTERS, rounds, transactions: TXS, docsPerTransaction: PER_TX, plugins: 'browser preset', primaryKey: true }, results };
}
