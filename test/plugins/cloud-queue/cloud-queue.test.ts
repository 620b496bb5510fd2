import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Class, createStack, type ClientStack, type StackWith } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { cloudQueuePlugin, type CloudQueueOptions } from '../../../plugins/cloud-queue/index.js';
import type { ServerNode } from '../../../server/node.js';
import { ADMIN, login, userNode } from '../../server/node-helpers.js';
import { track, uniqueName } from '../../helpers/stack.js';

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A small HTTP server on 127.0.0.1, port 0, closed after the test. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => void Promise.resolve(handler(req, res, body)).catch(() => res.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** One node (memory store) for the file: each test uses classes of its own. */
let shared: { node: ServerNode; origin: string; db: string };
beforeAll(async () => {
  const { node, url } = await userNode({ username: 'someone', password: 'someone password' }, { adapter: 'memory' });
  shared = { node, origin: url, db: `${url}/db/docstack` };
});
afterAll(() => shared.node.stop());
const cloud = async () => shared;

function queueStack(options: CloudQueueOptions) {
  const plugins = [...browser, [cloudQueuePlugin, { intervalMs: 0, retryDelayMs: 20, env: {}, ...options }]] as const;
  return createStack({ name: uniqueName('queue'), adapter: 'memory', plugins }).then((s) => track(s as StackWith<typeof plugins>));
}

function events(stack: ClientStack, name: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  stack.on(name, (e: Record<string, unknown>) => seen.push(e));
  return seen;
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the cloud queue', () => {
  it('flushes in batches with new_edits: false: revisions and conflicts arrive as they are, nothing overwritten', async () => {
    const { node, db } = await cloud();
    const stack = await queueStack({ url: db, username: ADMIN.username, password: ADMIN.password, batchSize: 10 });
    const flushed = events(stack, 'cloud-queue:flushed');
    await Class.create(stack, 'Note', 'class', '', { text: { type: 'string' } });
    const docs = await stack.createDocs(Array.from({ length: 24 }, (_, i) => ({ '~class': 'Note', text: `n${i}` })));
    // 24 writes: the size trigger has started flushing; flush() waits for it and sends the rest
    expect(await stack.cloudQueue.flush()).toMatchObject({ pending: 0 });
    expect(flushed.reduce((n, f) => n + (f.sent as number), 0)).toBe(25);
    expect(flushed.length).toBeGreaterThanOrEqual(3);
    expect(flushed.at(-1)).toMatchObject({ pending: 0 });

    const remote = node.stack();
    for (const doc of docs) expect((await remote.storage.get(doc._id))?._rev).toBe(doc._rev);

    // both sides edit the same document: the endpoint keeps both leaves, the same winner as a replica would pick
    const [target] = docs;
    const theirs = await remote.updateDoc(target._id, { text: 'edited in the cloud' });
    const ours = await stack.updateDoc(target._id, { text: 'edited here' });
    await stack.cloudQueue.flush();
    const stored = await remote.storage.replication.get(target._id, { conflicts: true });
    expect([stored._rev, ...(stored._conflicts ?? [])].sort()).toEqual([theirs._rev, ours._rev].sort());
    // and the nothing-left flush sends nothing
    expect(await stack.cloudQueue.flush()).toMatchObject({ sent: 0, batches: 0, pending: 0 });
  });

  it('flushes on its schedule and when batchSize writes are waiting', async () => {
    const { node, db } = await cloud();
    const bySize = await queueStack({ url: db, username: ADMIN.username, password: ADMIN.password, batchSize: 5 });
    const flushed = events(bySize, 'cloud-queue:flushed');
    await Class.create(bySize, 'Sized', 'class', '', { text: { type: 'string' } });
    await bySize.createDocs(Array.from({ length: 5 }, (_, i) => ({ '~class': 'Sized', text: `s${i}` })));
    await until(() => flushed.length > 0 && flushed.at(-1)!.pending === 0);

    const scheduled = await queueStack({ url: db, username: ADMIN.username, password: ADMIN.password, intervalMs: 30 });
    const ticks = events(scheduled, 'cloud-queue:flushed');
    await Class.create(scheduled, 'Memo', 'class', '', { text: { type: 'string' } });
    const memo = await scheduled.createDoc({ '~class': 'Memo', text: 'on time' });
    await until(() => ticks.some((t) => t.pending === 0));
    expect((await node.stack().storage.get(memo._id))?._rev).toBe(memo._rev);
    expect(await node.stack().storage.range({ prefix: 'Sized-' })).toHaveLength(5);
  });

  it('a failing endpoint is retried with back-off; the batch stays queued and goes when it answers', async () => {
    const { db } = await cloud();
    let refusals = 2;
    const target = new URL(db);
    const flaky = await serve(async (req, res, body) => {
      if (refusals-- > 0) return void res.writeHead(503).end();
      const answer = await fetch(new URL(req.url!, target), { method: req.method, headers: { 'content-type': 'application/json', authorization: String(req.headers.authorization) }, body: body || undefined });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    const stack = await queueStack({ url: `${flaky}${target.pathname}`, username: ADMIN.username, password: ADMIN.password });
    const failed = events(stack, 'cloud-queue:failed');
    const flushed = events(stack, 'cloud-queue:flushed');
    await Class.create(stack, 'Patient', 'class', '', { text: { type: 'string' } });
    await stack.createDoc({ '~class': 'Patient', text: 'patience' });
    const pending = await stack.cloudQueue.pending();
    await expect(stack.cloudQueue.flush()).rejects.toMatchObject({ code: 'DS_CLOUD_HTTP', details: { status: 503 } });
    await until(() => flushed.some((f) => f.pending === 0));
    expect(failed.map((f) => [f.code, f.attempt, f.retryInMs, f.pending])).toEqual([
      ['DS_CLOUD_HTTP', 1, 20, pending],
      ['DS_CLOUD_HTTP', 2, 40, pending],
    ]);
    expect(await stack.cloudQueue.pending()).toBe(0);
  });

  it('exchanges an IAM API key for a bearer token (cached, fetched again after a 401), and reports a refused key', async () => {
    const { origin, db, node } = await cloud();
    const { token } = await login(origin);
    const exchanges: string[] = [];
    const iam = await serve((req, res, body) => {
      const form = new URLSearchParams(body);
      exchanges.push(String(form.get('apikey')));
      const ok = req.method === 'POST' && req.headers['content-type'] === 'application/x-www-form-urlencoded' && form.get('grant_type') === 'urn:ibm:params:oauth:grant-type:apikey';
      if (!ok || form.get('apikey') !== 'the-api-key') return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"errorCode":"BXNIM0415E"}');
      // the first token handed out is one the node does not know: the queue must get a new one on 401
      const accessToken = exchanges.length === 1 ? 'stale-token' : token;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600, expiration: Math.floor(Date.now() / 1000) + 3600 }));
    });
    const stack = await queueStack({ url: db, apiKey: 'the-api-key', iamUrl: `${iam}/identity/token` });
    await Class.create(stack, 'Iam', 'class', '', { text: { type: 'string' } });
    const a = await stack.createDoc({ '~class': 'Iam', text: 'via IAM' });
    await stack.cloudQueue.flush();
    const b = await stack.createDoc({ '~class': 'Iam', text: 'same token' });
    await stack.cloudQueue.flush();
    expect(exchanges).toEqual(['the-api-key', 'the-api-key']); // once stale, then cached for the second flush
    for (const doc of [a, b]) expect((await node.stack().storage.get(doc._id))?._rev).toBe(doc._rev);

    // a wrong key: DS_CLOUD_AUTH, nothing sent, and the key appears in no event
    const refused = await queueStack({ url: db, apiKey: 'a-wrong-key', iamUrl: `${iam}/identity/token` });
    const failed = events(refused, 'cloud-queue:failed');
    await Class.create(refused, 'Memo', 'class', '', { text: { type: 'string' } });
    const memo = await refused.createDoc({ '~class': 'Memo', text: 'never sent' });
    await expect(refused.cloudQueue.flush()).rejects.toMatchObject({ code: 'DS_CLOUD_AUTH' });
    expect(failed[0]).toMatchObject({ code: 'DS_CLOUD_AUTH', attempt: 1 });
    expect(JSON.stringify(failed)).not.toContain('a-wrong-key');
    expect(await node.stack().storage.get(memo._id)).toBeNull();
  });

  it('documents the endpoint refuses one by one are reported (cloud-queue:rejected) and the queue moves on', async () => {
    const { db, node } = await cloud();
    // a user who is not an admin: the node refuses the class document (only an admin changes the schema), then the documents of that class
    const stack = await queueStack({ url: db, username: 'someone', password: 'someone password' });
    const rejected = events(stack, 'cloud-queue:rejected');
    await Class.create(stack, 'Refused', 'class', '', { text: { type: 'string' } });
    const doc = await stack.createDoc({ '~class': 'Refused', text: 'not for this node' });
    expect(await stack.cloudQueue.flush()).toMatchObject({ sent: 2, pending: 0 });
    expect(rejected.map((r) => r.id).sort()).toEqual(['Refused', doc._id].sort());
    expect(rejected.every((r) => typeof r.error === 'string')).toBe(true);
    // the document waits for a class refused in the same batch: refused too (DS_DEPENDENCY_REFUSED), not held forever
    expect(rejected.find((r) => r.id === doc._id)?.reason).toContain('"Refused" (DS_AUTHZ_SCHEMA)');
    expect(await node.stack().storage.get(doc._id)).toBeNull();
    expect((await node.stack().heldDocuments()).map((h) => h.id)).not.toContain(doc._id);
    expect(await stack.cloudQueue.flush()).toMatchObject({ sent: 0 }); // not sent again
  });

  it('refuses missing or malformed options with DS_CLOUD_OPTIONS; CLOUDANT_URL is read from the environment', async () => {
    await expect(queueStack({})).rejects.toMatchObject({ code: 'DS_CLOUD_OPTIONS', path: 'url' });
    await expect(queueStack({ url: 'ftp://example' })).rejects.toMatchObject({ code: 'DS_CLOUD_OPTIONS' });
    await expect(queueStack({ url: 'http://127.0.0.1:1/db', batchSize: 0 })).rejects.toMatchObject({ code: 'DS_CLOUD_OPTIONS', path: 'batchSize' });
    const { db } = await cloud();
    const withAuth = new URL(db);
    withAuth.username = ADMIN.username;
    withAuth.password = ADMIN.password;
    const stack = await queueStack({ env: { CLOUDANT_URL: withAuth.href } });
    await Class.create(stack, 'Env', 'class', '', { text: { type: 'string' } });
    await stack.createDoc({ '~class': 'Env', text: 'from env' });
    expect(await stack.cloudQueue.flush()).toMatchObject({ sent: 2, pending: 0 });
  });
});
