/**
 * A node's own `stack.sync` (server/replication/own-sync.ts), between two real nodes: node B
 * syncs with node A. What B sends is recorded by an HTTP proxy in front of A: B's users, sessions
 * and secrets never leave it. What B pulls is authorized as a push to B would be: without
 * `pullAs` the remote brings data only (no schema), with `pullAs` an admin of B it brings the
 * schema too; engine documents are refused either way.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Class, DocstackError, getApi, type ClientStack } from '../../index.js';
import { syncPlugin } from '../../plugins/sync/index.js';
import type { SyncRefusal } from '../../plugins/sync/index.js';
import { memoryStack } from '../helpers/stack.js';
import type { ServerStack } from '../../plugins.config.js';
import { ADMIN, login, testNode } from './node-helpers.js';

/** An HTTP proxy to `target` keeping every request body it forwards. */
async function recordingProxy(target: string) {
  const bodies: string[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    bodies.push(`${req.method} ${req.url} ${body}`);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, ...(body !== '' ? { body } : {}) });
    const out = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', ...(answer.headers.get('set-cookie') ? { 'set-cookie': answer.headers.get('set-cookie')! } : {}) });
    res.end(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("a node's own sync", () => {
  it('never sends server-private documents, and authorizes what it pulls as a push (pullAs)', async () => {
    const a = await testNode();
    const aUrl = (await a.node.start()).url;
    await Class.create(a.node.stack(), 'Item', 'class', '', { title: { type: 'string', mandatory: true } });
    const [fromA] = await a.node.stack().createDocs([{ '~class': 'Item', title: 'made on A' }]);

    const b = await testNode();
    const bUrl = (await b.node.start()).url;
    const bStack = b.node.stack() as ServerStack;
    await login(bUrl); // a ~UserSession on B
    const secret = await fetch(`${bUrl}/api/private/secrets/crm-key`, { method: 'PUT', headers: { authorization: `Bearer ${(await login(bUrl)).token}`, 'content-type': 'application/json' }, body: JSON.stringify({ value: 'never to leave B' }) });
    expect(secret.status).toBe(200);
    const privateIds = (await Promise.all(['~User-', '~UserSession-', '~Secret-'].map((prefix) => bStack.storage.range({ prefix })))).flat().map((row) => row.id);
    expect(privateIds.filter((id) => id.startsWith('~User-')).length).toBeGreaterThan(0);
    expect(privateIds.filter((id) => id.startsWith('~UserSession-')).length).toBeGreaterThan(0);
    expect(privateIds.filter((id) => id.startsWith('~Secret-')).length).toBeGreaterThan(0);

    const engineBefore = new Set((await bStack.storage.range({ prefix: '~' })).map((r) => r.id));
    const proxy = await recordingProxy(aUrl);
    const remote = `${proxy.url}/db/docstack`;
    const auth = { username: ADMIN.username, password: ADMIN.password };
    try {
      // without pullAs: A is an unprivileged peer to B — its schema is refused, loudly
      const first = await bStack.sync({ remote, auth });
      expect(first.ok).toBe(false);
      expect(first.refused).toContainEqual(expect.objectContaining({ id: 'Item', code: 'DS_AUTHZ_SCHEMA', direction: 'pull' }));
      expect(await bStack.getDocument(fromA._id)).toBeNull();
      expect(await bStack.storage.get('Item')).toBeNull();
      const denied = await getApi(bStack, syncPlugin)!.denied();
      expect(denied).toContainEqual(expect.objectContaining({ id: 'Item', direction: 'pull', code: 'DS_AUTHZ_SCHEMA' }));
      // A's engine documents (its jobs, its own system classes) are refused too, as expected ones
      expect(first.refused.every((r: SyncRefusal) => r.code !== 'DS_AUTHZ_INTERNAL')).toBe(true);

      // pullAs: A acts as B's admin, who may bring schema; the sync goes on from its checkpoints
      await getApi(bStack, syncPlugin)!.resolveDenied('Item');
      await expect(bStack.sync({ remote, auth, pullAs: 'nobody' })).rejects.toMatchObject({ code: 'DS_SYNC_OPTIONS', path: 'pullAs' });
      // the checkpoint moved past the refused documents: a fresh scope reads them again
      const second = await bStack.sync({ remote, auth, pullAs: ADMIN.username, classes: ['Item'] });
      expect(second.refused).toEqual([]);
      expect(await bStack.getDocument(fromA._id)).toMatchObject({ title: 'made on A' });
      // none of A's engine documents was stored on B (only what B made itself is new there)
      const engineIdsOf = async (stack: ClientStack) => (await stack.storage.range({ prefix: '~' })).map((r) => r.id).filter((id) => !id.startsWith('~rel-') && !id.startsWith('~Patch-'));
      const onA = new Set(await engineIdsOf(a.node.stack()));
      expect((await engineIdsOf(bStack)).filter((id) => !engineBefore.has(id) && onA.has(id))).toEqual([]);
    } finally {
      await proxy.close();
    }
    // nothing B sent to A names a server-private document
    const sent = proxy.bodies.filter((line) => line.startsWith('POST'));
    expect(sent.some((line) => line.includes('_bulk_docs') || line.includes('_revs_diff'))).toBe(true);
    for (const id of privateIds) expect(sent.filter((line) => line.includes(id))).toEqual([]);
    expect(sent.some((line) => /"~(User|UserSession|Secret)-/.test(line))).toBe(false);
  }, 60_000);

  it('pullAs is refused on a stack without a node policy (a client)', async () => {
    const client = await memoryStack();
    expect(() => client.sync({ remote: 'http://127.0.0.1:1/db/docstack', pullAs: 'admin' })).toThrow(expect.objectContaining({ code: 'DS_SYNC_OPTIONS' }));
    expect(DocstackError).toBeDefined();
  });
});
