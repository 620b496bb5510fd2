/**
 * An idempotent `_bulk` survives the node's death: a real node process (server/main.ts, leveldb
 * on disk) is killed with SIGKILL while it stores a batch of 5,000 documents sent with an
 * Idempotency-Key, so part of the batch is stored. A node opened again on the same data folder
 * (in this process, as is the set-up before: child starts are the test's cost) answers the same
 * request, sent again with the same session, by completing the batch: 201, every document stored exactly
 * once, no DS_UNIQUE_VIOLATION for the ones stored before the crash.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/stack.js';
import { login, nodeProcess, testNode } from './node-helpers.js';

// large enough that the batch is still being stored when the poll below sees its first chunk (2,000 finished first now and then on a loaded CI machine)
const DOCS = 5000;
const PASSPHRASE = 'crash test passphrase';

/** A node process on leveldb in dataDir (npm start's server/main.ts), already set up: no key to make, no admin to hash. */
async function startChild(dataDir: string) {
  const run = await nodeProcess(dataDir, { ENCRYPTION_PASSPHRASE: PASSPHRASE });
  const [, url] = await run.until(/node ready at (http:\/\/\S+)/);
  return { ...run, url };
}

/** A node in this process on the same data folder (its keys, users and sessions). */
async function openHere(dataDir: string) {
  const { node } = await testNode({ dataDir, env: { ENCRYPTION_PASSPHRASE: PASSPHRASE } });
  const { url } = await node.start();
  return { node, url };
}

function caller(url: string, token: string) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('an idempotent _bulk across a crash', () => {
  it('a retry of the same keyed batch after kill -9 mid-write completes it: 201, each document once', async () => {
    const dataDir = await tempDir();
    // set up here (keys, admin, session, class), then the same folder in a node process
    const setup = await openHere(dataDir);
    const { token } = await login(setup.url);
    expect((await caller(setup.url, token)('POST', '/api/private/create-class/Part', { schema: { sku: { type: 'string', primaryKey: true }, n: { type: 'integer' } } })).status).toBeLessThan(300);
    await setup.node.stop();
    const first = await startChild(dataDir);
    const call = caller(first.url, token);
    const batch = { docs: Array.from({ length: DOCS }, (_, n) => ({ sku: `sku-${n}`, n })) };
    const key = { 'idempotency-key': 'import-2026-11-26-part-1' };

    // kill the node as soon as the first chunk of the batch is stored (the write goes on in chunks)
    const sent = call('POST', '/api/private/docs/Part/_bulk', batch, key).then((r) => r.status, () => 'cut off');
    for (;;) {
      const page = (await (await call('GET', '/api/private/docs/Part?limit=1')).json()) as { docs: unknown[] };
      if (page.docs.length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await sent).toBe('cut off');

    // opened again: the same store, keys, users and session
    const { node, url } = await openHere(dataDir);
    const retryCall = caller(url, token);
    const stored = async () => (await node.stack().storage.range({ prefix: 'Part-', includeDocs: true })).map((r) => r.doc.sku as string);
    const before = await stored();
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(DOCS); // the crash left the batch part stored

    const retry = await retryCall('POST', '/api/private/docs/Part/_bulk', batch, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const answered = ((await retry.json()) as { docs: { _id: string; sku: string }[] }).docs;
    expect(answered.map((d) => d.sku)).toEqual(batch.docs.map((d) => d.sku));
    const after = await stored();
    expect(after.length).toBe(DOCS);
    expect(new Set(after).size).toBe(DOCS);
    expect(new Set(answered.map((d) => d._id))).toEqual(new Set((await node.stack().storage.range({ prefix: 'Part-' })).map((r) => r.id)));

    // and once more: nothing left to do, the same answer
    const again = await retryCall('POST', '/api/private/docs/Part/_bulk', batch, key);
    expect(again.status).toBe(201);
    expect(((await again.json()) as { docs: { _id: string }[] }).docs.map((d) => d._id)).toEqual(answered.map((d) => d._id));
    expect((await stored()).length).toBe(DOCS);
  }, 90_000);
});
