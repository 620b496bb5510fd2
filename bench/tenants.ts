/**
 * bench/tenants: the scoping of issue 12, on a real node (server/node.ts, leveldb, real login).
 *
 * 1. Filtered pull: a client stack (`stack.sync`, memory) pulls the 5,000 Items of a tenant
 *    holding 50,000 documents (Items one in ten among 45,000 Others) with `classes: ['Item']`,
 *    against an unfiltered pull of the same 5,000 Items (same ids, same revisions) from a
 *    tenant holding only them. Aim: ≤ 1.5×.
 * 2. Memory: the node opens 200 tenant stacks in turn (one write each), with TENANT_MAX_OPEN
 *    20; the resident set is sampled after every tenant and the peak printed. Not a ratio: the
 *    figures are recorded in settings.memory (bench/results/tenants.json).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Class, createStack, type ClientStack } from '../index.js';
import { browser } from '../plugins.config.js';
import { createServerNode, type ServerNode } from '../server/node.js';
import { collectGarbage, comparison, measure, record, rotate, summarize, type BenchReport, type Sample, type BenchOptions } from './harness.js';

const TOTAL = 50_000;
const ITEMS = 5_000;
const TENANTS = 200;
const MAX_OPEN = 20;
const ADMIN = { username: 'admin', password: 'bench admin password' };

async function startNode(dir: string, env: Record<string, string> = {}): Promise<{ node: ServerNode; url: string; token: string }> {
  const node = createServerNode({
    env: { NODE_ENV: 'test', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ENCRYPTION_PASSPHRASE: 'bench key passphrase', ...env },
    config: { port: 0, host: '127.0.0.1', dataDir: dir },
    log: () => undefined,
  });
  const { url } = await node.start();
  const res = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  const token = /jwtToken=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!token) throw new Error('bench: the admin login failed');
  return { node, url, token };
}

const hex = (n: number) => n.toString(16).padStart(32, '0');
const stored = (cls: 'Item' | 'Other', i: number) => ({
  _id: `${cls}-${String(i).padStart(6, '0')}`,
  _rev: `1-${hex(i + 1)}`,
  '~class': cls,
  title: `${cls} number ${i}`,
  n: i,
  '~createTimestamp': '2026-01-01T00:00:00.000Z',
  active: true,
});

/** Writes documents as a peer would have (given ids and revisions), a thousand at a time. */
async function fill(stack: ClientStack, docs: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < docs.length; i += 1000) {
    const lines = await stack.ingest(docs.slice(i, i + 1000), { origin: 'replication', newEdits: false });
    const refused = lines.find((l) => !l.ok);
    if (refused) throw new Error(`bench: a document was refused: ${JSON.stringify(refused)}`);
  }
}

let clients = 0;
async function pull(url: string, token: string, classes?: string[]): Promise<Sample> {
  const client = await createStack({ name: `bench-tenants-client-${process.pid}-${++clients}`, adapter: 'memory', plugins: browser });
  try {
    let pulled = 0;
    const sample = await measure(async () => {
      const result = (await client.sync({ remote: url, auth: { token }, batchSize: 100, ...(classes ? { classes } : {}) })) as { pull?: { docs_written: number } };
      pulled = result.pull?.docs_written ?? 0;
    });
    const items = (await client.storage.range({ prefix: 'Item-' })).length;
    if (items !== ITEMS) throw new Error(`bench: the pull brought ${items} Items, not ${ITEMS} (written ${pulled})`);
    return sample;
  } finally {
    await client.close();
  }
}

async function filteredPull(options: BenchOptions, dir: string) {
  const { node, url, token } = await startNode(dir);
  try {
    const schema = { title: { type: 'string' }, n: { type: 'integer' } };
    await Class.create(node.stack(), 'Item', 'class', '', schema, { tenants: ['big', 'small'] });
    await Class.create(node.stack(), 'Other', 'class', '', schema, { tenants: ['big'] });
    const all = Array.from({ length: TOTAL }, (_, i) => (i % 10 === 0 ? stored('Item', i / 10) : stored('Other', i)));
    options.log(`filling: ${TOTAL.toLocaleString('en')} documents in tenant "big", ${ITEMS.toLocaleString('en')} in "small"`);
    await node.tenants.use('big', (stack) => fill(stack, all));
    await node.tenants.use('small', (stack) => fill(stack, all.filter((d) => d['~class'] === 'Item')));
    const filtered = comparison({ name: `pull 1 class: ${ITEMS.toLocaleString('en')} of ${TOTAL.toLocaleString('en')}`, adapter: 'leveldb', engine: 'classes: [Item]', baseline: `unfiltered, db of ${ITEMS.toLocaleString('en')}`, aim: { max: 1.5, binding: true } });
    for (let round = 0; round <= options.rounds; round++) {
      const samples: Record<string, Sample> = {};
      for (const side of rotate(['filtered', 'unfiltered'], round)) {
        samples[side] = side === 'filtered' ? await pull(`${url}/db/big`, token, ['Item']) : await pull(`${url}/db/small`, token);
      }
      options.log(`round ${round === 0 ? 'warm-up' : round}: filtered ${samples.filtered.wallMs.toFixed(0)} ms, unfiltered ${samples.unfiltered.wallMs.toFixed(0)} ms`);
      if (round > 0) record(filtered, samples.filtered, samples.unfiltered);
    }
    return summarize(filtered);
  } finally {
    await node.stop();
  }
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function tenantMemory(options: BenchOptions, dir: string) {
  const { node } = await startNode(dir, { TENANT_MAX_OPEN: String(MAX_OPEN) });
  try {
    const tenants = Array.from({ length: TENANTS }, (_, i) => `t${String(i).padStart(3, '0')}`);
    await Class.create(node.stack(), 'Memo', 'class', '', { text: { type: 'string' } }, { tenants });
    await node.tenants.use('t000', async () => undefined); // the first open loads the adapters and plugins' modules
    collectGarbage();
    const start = process.memoryUsage().rss;
    let peak = start;
    let peakOpen = 0;
    let afterMaxOpen = 0;
    for (const [i, tenant] of tenants.entries()) {
      await node.tenants.use(tenant, (stack) => stack.createDoc({ '~class': 'Memo', text: `memo of ${tenant}` }));
      peak = Math.max(peak, process.memoryUsage().rss);
      peakOpen = Math.max(peakOpen, node.tenants.openCount);
      if (i === MAX_OPEN * 2 - 1) afterMaxOpen = process.memoryUsage().rss;
      if ((i + 1) % 50 === 0) options.log(`${i + 1} tenants opened: rss ${mb(process.memoryUsage().rss)} MB, ${node.tenants.openCount} open`);
    }
    collectGarbage();
    const end = process.memoryUsage().rss;
    return {
      tenants: TENANTS,
      maxOpen: MAX_OPEN,
      mostOpenAtOnce: peakOpen,
      rssBeforeMb: mb(start),
      [`rssAfter${MAX_OPEN * 2}TenantsMb`]: mb(afterMaxOpen),
      peakRssMb: mb(peak),
      rssAfterAllMb: mb(end),
      peakOverAfter40: Math.round((peak / afterMaxOpen) * 100) / 100,
    };
  } finally {
    await node.stop();
  }
}

export async function runTenants(options: BenchOptions): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'docstack-bench-tenants-'));
  try {
    // memory first: the 50,000-document pull would leave its garbage in the resident set
    const memory = await tenantMemory(options, join(dir, 'memory'));
    const pullResult = await filteredPull(options, join(dir, 'pull'));
    options.log(`memory: ${JSON.stringify(memory)}`);
    console.log(`peak RSS with ${TENANTS} tenant stacks opened in turn (at most ${MAX_OPEN} open): ${memory.peakRssMb} MB`);
    return {
      bench: 'tenants',
      settings: { docs: TOTAL, items: ITEMS, batchSize: 100, rounds: options.rounds, client: 'docstack stack.sync (memory, browser preset)', node: 'createServerNode, leveldb, tenant stacks', memory },
      results: [pullResult],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
