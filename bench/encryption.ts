/**
 * bench/encryption: what field-level encryption costs, against the same work unencrypted in
 * the same run. Two classes with the same two attributes (a string and an object), one with
 * both `encrypted: true`; both stacks unlocked (the PBKDF2 unlock is not timed: it happens
 * once per session). Measured: bulk insert of 500 documents (createDocs), 3,000 reads by id
 * (each document six times, decrypted-value cache cold at the start), and 500 reads of
 * distinct documents with a cold cache (pure decryption cost).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Class, createStack, type ClientStack } from '../index.js';
import { browser, type BrowserStack } from '../plugins.config.js';
import { rawDatabase } from '../storage/raw-database.js';
import { collectGarbage, comparison, interleaved, measure, record, summarize, type BenchReport, type Comparison, type ComparisonResult, type BenchOptions } from './harness.js';

const DOCS = 500;
const READS = 3000;
const BLOCKS = 6;
const AIM = 1.5;
const ADAPTERS = ['leveldb', 'memory'] as const;
const PASSPHRASE = 'bench passphrase';

const schema = (encrypted: boolean) => ({
  note: { type: 'string', encrypted, maxLength: 200 },
  profile: { type: 'object', encrypted },
  label: { type: 'string' },
});

const inputs = (className: string) =>
  Array.from({ length: DOCS }, (_, i) => ({
    '~class': className,
    note: `a private note number ${i} with some text in it`,
    profile: { phone: `+33 6 ${String(i).padStart(8, '0')}`, tags: ['a', 'b'], score: i },
    label: `doc ${i}`,
  }));

async function openSide(adapter: (typeof ADAPTERS)[number], dir: string, encrypted: boolean): Promise<BrowserStack> {
  const stack = await createStack({ name: `bench-enc-${encrypted ? 'on' : 'off'}-${Date.now()}-${Math.random().toString(36).slice(2)}`, adapter, dataDir: dir, plugins: browser });
  await stack.unlock(PASSPHRASE);
  await Class.create(stack, 'Note', 'class', '', schema(encrypted) as never);
  return stack;
}

async function drop(stack: ClientStack): Promise<void> {
  const db = rawDatabase(stack); // benchmarks, like tests, may reach the raw store
  await stack.close();
  const PouchDB = (await import('pouchdb-core')).default;
  await new PouchDB(db.name, { adapter: (db as unknown as { adapter: string }).adapter } as never).destroy();
}

/** Forgets decrypted values (lock) and unlocks again, outside the timing. */
async function coldCache(stack: BrowserStack): Promise<void> {
  stack.lock();
  await stack.unlock(PASSPHRASE);
}

async function round(adapter: (typeof ADAPTERS)[number], dir: string, n: number, into: Record<string, Comparison> | null): Promise<void> {
  const plain = await openSide(adapter, dir, false);
  const sealed = await openSide(adapter, dir, true);
  const ids: Record<string, string[]> = {};
  const bulk = await interleaved(
    {
      plain: async () => void (ids.plain = (await plain.createDocs(inputs('Note'))).map((d) => d._id)),
      sealed: async () => void (ids.sealed = (await sealed.createDocs(inputs('Note'))).map((d) => d._id)),
    },
    1,
    n,
  );
  await coldCache(sealed);
  const readAll = (stack: ClientStack, list: string[]) => async (block: number) => {
    const per = READS / BLOCKS;
    for (let i = block * per; i < (block + 1) * per; i++) if (!(await stack.getDocument(list[i % list.length]))) throw new Error('read missed');
  };
  const reads = await interleaved({ plain: readAll(plain, ids.plain), sealed: readAll(sealed, ids.sealed) }, BLOCKS, n);
  await coldCache(sealed);
  collectGarbage();
  const distinctPlain = await measure(async () => {
    for (const id of ids.plain) await plain.getDocument(id);
  });
  const distinctSealed = await measure(async () => {
    for (const id of ids.sealed) await sealed.getDocument(id);
  });
  await drop(plain);
  await drop(sealed);
  if (!into) return;
  record(into.bulk, bulk.sealed, bulk.plain);
  record(into.reads, reads.sealed, reads.plain);
  record(into.cold, distinctSealed, distinctPlain);
}

export async function runEncryption(options: BenchOptions): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'docstack-bench-enc-'));
  const results: ComparisonResult[] = [];
  try {
    for (const adapter of ADAPTERS) {
      const binding = adapter === 'leveldb';
      const comparisons: Record<string, Comparison> = {
        bulk: comparison({ name: `bulk insert ${DOCS}, 2 encrypted attrs`, adapter, engine: 'createDocs, encrypted', baseline: 'createDocs, clear', aim: { max: AIM, binding } }),
        reads: comparison({ name: `${READS} reads by id`, adapter, engine: 'getDocument, encrypted', baseline: 'getDocument, clear', aim: { max: AIM, binding } }),
        cold: comparison({ name: `${DOCS} distinct reads, cold`, adapter, engine: 'getDocument, encrypted', baseline: 'getDocument, clear', aim: { max: AIM, binding: false } }),
      };
      options.log(`encryption/${adapter}: warm-up`);
      await round(adapter, dir, 0, null);
      for (let n = 1; n <= options.rounds; n++) {
        options.log(`encryption/${adapter}: round ${n}/${options.rounds}`);
        await round(adapter, dir, n, comparisons);
      }
      results.push(...Object.values(comparisons).map(summarize));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { bench: 'encryption', settings: { adapters: ADAPTERS, rounds: options.rounds, docs: DOCS, reads: READS, encryptedAttributes: ['note (string)', 'profile (object)'] }, results };
}
