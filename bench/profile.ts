/**
 * bench/profile: one engine workload under `node --cpu-prof`, for reading where the time goes
 * (not a timing: bench/pipeline has the ratios). Usage:
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.ts bulk|serial|live|lookup|ingest|encrypted|clear [memory|leveldb]
 * (`encrypted`: bench/encryption's bulk insert, 40 × 500 documents with two encrypted attributes;
 * `clear`: the same class and documents unencrypted, for the baseline's profile)
 * then `node --import tsx bench/profile-top.ts /tmp/prof/<file>.cpuprofile` for the top entries.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Class, createStack } from '../index.js';
import { browser } from '../plugins.config.js';

const [what = 'bulk', adapter = 'memory'] = process.argv.slice(2) as [string, 'memory' | 'leveldb'];
const dataDir = await mkdtemp(join(tmpdir(), 'docstack-profile-'));
const stack = await createStack({ name: `profile-${process.pid}`, adapter, dataDir, plugins: browser });
const items = await Class.create(stack, 'Item', 'class', 'profiled', {
  code: { type: 'string', primaryKey: true, maxLength: 24 },
  label: { type: 'string', maxLength: 80 },
  quantity: { type: 'integer', min: 0 },
  status: { type: 'enum', values: ['draft', 'active', 'retired'] },
});
const doc = (n: number) => ({ '~class': 'Item', code: `ITEM-${n}`, label: `item ${n}`, quantity: n % 1000, status: 'active' });
if (what === 'live') items.on('change', () => undefined);
const started = performance.now();
if (what === 'bulk' || what === 'live') for (let r = 0; r < 3; r++) await stack.createDocs(Array.from({ length: 10_000 }, (_, i) => doc(r * 10_000 + i)));
if (what === 'serial') for (let i = 0; i < 3_000; i++) await stack.createDoc(doc(i));
if (what === 'lookup') {
  await stack.createDocs(Array.from({ length: 10_000 }, (_, i) => doc(i)));
  for (let i = 0; i < 10_000; i += 2) await items.getByPrimaryKeys({ code: `ITEM-${i}` });
}
if (what === 'ingest') {
  // what the node's _bulk_docs does with a push: documents made by a peer, with their revisions
  const peer = await createStack({ name: `profile-peer-${process.pid}`, adapter: 'memory', plugins: browser });
  await Class.create(peer, 'Item', 'class', 'profiled', items.model.schema as never);
  const made = await peer.createDocs(Array.from({ length: 10_000 }, (_, i) => doc(i)));
  const revisions = await Promise.all(made.map((d) => peer.storage.replication.get(d._id, { revs: true })));
  const t = performance.now();
  for (let start = 0; start < revisions.length; start += 1000) await stack.ingest(revisions.slice(start, start + 1000));
  console.log(`ingest of 10,000 in batches of 1,000: ${Math.round(performance.now() - t)} ms`);
  await peer.close();
}
if (what === 'encrypted' || what === 'clear') {
  // bench/encryption's documents: a string and an object, both sealed on the encrypted side
  const encrypted = what === 'encrypted';
  await stack.unlock('profile passphrase');
  await Class.create(stack, 'Note', 'class', '', { note: { type: 'string', encrypted, maxLength: 200 }, profile: { type: 'object', encrypted }, label: { type: 'string' } } as never);
  const note = (i: number) => ({ '~class': 'Note', note: `a private note number ${i} with some text in it`, profile: { phone: `+33 6 ${String(i).padStart(8, '0')}`, tags: ['a', 'b'], score: i }, label: `doc ${i}` });
  for (let r = 0; r < 40; r++) await stack.createDocs(Array.from({ length: 500 }, (_, i) => note(r * 500 + i)));
}
if (what === 'live') await new Promise((r) => setTimeout(r, 2000)); // let the feed catch up inside the profile
console.log(`${what} on ${adapter}: ${Math.round(performance.now() - started)} ms`);
await stack.close();
await rm(dataDir, { recursive: true, force: true });
