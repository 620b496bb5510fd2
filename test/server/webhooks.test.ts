/**
 * Webhooks on a real node (memory store) against a receiver on 127.0.0.1: Standard Webhooks
 * signatures checked with the package's own verifier, secret headers read from the secret
 * store, retries with back-off then the dead letter, 410 disabling the endpoint, the admin API,
 * and the server-private documents hidden from replication.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Class, type ClientStack } from '../../index.js';
import { createUser } from '../../server/auth/index.js';
import type { ServerNode } from '../../server/node.js';
import { fileNode, login } from './node-helpers.js';
import { signingSecret, startReceiver, until } from './webhook-receiver.js';

let node: ServerNode;
let url: string;
let stack: ClientStack;
let admin: string;
let user: string;
const events: Array<{ name: string; payload: any }> = [];
const receivers: Array<{ close: () => Promise<void> }> = [];

async function call(method: string, path: string, body?: unknown, token = admin) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as any, text: '' };
}
async function receiver(answer?: () => number) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}
const deliveriesOf = async (endpoint: string) => (await call('GET', `/api/private/webhooks/deliveries?endpoint=${encodeURIComponent(endpoint)}`)).body.deliveries as any[];

beforeAll(async () => {
  node = await fileNode({ adapter: 'memory', webhooks: { retryBaseMs: 20, retryMaxMs: 60, maxAttempts: 3, pollMs: 50, timeoutMs: 2000 } });
  for (const name of ['webhook:delivered', 'webhook:failed', 'webhook:dead-lettered', 'webhook:disabled']) node.on(name, (payload) => events.push({ name, payload }));
  ({ url } = await node.start());
  stack = node.stack();
  await createUser(stack, 'wendy', 'wendy password for tests');
  admin = (await login(url)).token;
  user = (await login(url, 'wendy', 'wendy password for tests')).token;
  await Class.create(stack, 'Customer', 'class', '', { email: { type: 'string', mandatory: true } });
  await Class.create(stack, 'Note', 'class', '', { text: { type: 'string' } });
});
afterEach(async () => {
  for (const endpoint of (await call('GET', '/api/private/webhooks')).body.endpoints) await call('DELETE', `/api/private/webhooks/${endpoint.id}`);
  for (const r of receivers.splice(0)) await r.close();
  events.length = 0;
});
afterAll(() => node.stop());

describe('webhooks', () => {
  it('signs each delivery (Standard Webhooks), sends the classes and operations asked for, with secret headers', async () => {
    const hook = await receiver();
    const secret = signingSecret();
    expect((await call('PUT', '/api/private/secrets/crm-token', { value: 'Bearer crm-123' })).status).toBe(200);
    const registered = await call('POST', '/api/private/webhooks', { url: hook.url, classes: ['Customer'], operations: ['create', 'update'], secret, secretHeaders: { Authorization: 'crm-token' } });
    expect(registered.status).toBe(201);
    expect(JSON.stringify(registered.body)).not.toContain(secret.slice(6, 20));
    const endpoint = registered.body.id as string;

    // each change is read from the feed before the next one (the feed reports a document's latest revision)
    const doc = await stack.createDoc({ '~class': 'Customer', email: 'c@example.com' });
    await stack.createDoc({ '~class': 'Note', text: 'not sent' });
    await until(() => hook.received.length === 1, 5000, 'the created delivery');
    await stack.updateDoc(doc._id, { email: 'd@example.com' });
    await until(() => hook.received.length === 2, 5000, 'the updated delivery');
    await stack.deleteDocument(doc._id); // not among the operations
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.received).toHaveLength(2);

    const verifier = new Webhook(secret);
    const payloads = hook.received.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as any);
    expect(payloads.map((p) => p.type).sort()).toEqual(['document.created', 'document.updated']);
    expect(payloads.find((p) => p.type === 'document.updated').data).toMatchObject({ className: 'Customer', id: doc._id, doc: { email: 'd@example.com' } });
    expect(hook.received.every((r) => r.headers.authorization === 'Bearer crm-123')).toBe(true);
    // a tampered body or another key does not verify
    expect(() => verifier.verify(hook.received[0].body.replace('c@example', 'x@example'), hook.received[0].headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(signingSecret()).verify(hook.received[0].body, hook.received[0].headers as Record<string, string>)).toThrow();

    await until(async () => (await deliveriesOf(endpoint)).every((d) => d.status === 'delivered'), 5000, 'delivered status');
    const listed = await deliveriesOf(endpoint);
    expect(listed).toHaveLength(2);
    expect(listed.map((d) => d.webhookId).sort()).toEqual(hook.received.map((r) => r.headers['webhook-id']).sort());
    expect(events.filter((e) => e.name === 'webhook:delivered')).toHaveLength(2);
  });

  it('with no endpoint, moves past what is written without reading the feed; an endpoint registered after gets only the changes after it', async () => {
    const reads = vi.spyOn(stack.storage, 'changes');
    const before = await stack.createDoc({ '~class': 'Customer', email: 'before@example.com' });
    await until(async () => (await stack.storage.info()).updateSeq === (await stack.storage.get<{ seq: number }>('_local/~webhooks-outbox'))?.seq, 5000, 'the checkpoint at the update sequence');
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();

    const hook = await receiver();
    expect((await call('POST', '/api/private/webhooks', { url: hook.url, classes: ['Customer'], operations: ['create', 'update'], secret: signingSecret() })).status).toBe(201);
    const after = await stack.createDoc({ '~class': 'Customer', email: 'after@example.com' });
    await until(() => hook.received.length === 1, 5000, 'the delivery of the later document');
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.received.map((r) => JSON.parse(r.body).data.id)).toEqual([after._id]);
    expect(before._id).not.toBe(after._id);
  });

  it('retries a failing receiver with back-off (same webhook-id), then dead-letters; an admin can send it again', async () => {
    const hook = await receiver(() => 500);
    const { body: endpoint } = await call('POST', '/api/private/webhooks', { url: hook.url, classes: ['*'], secret: signingSecret() });
    await stack.createDoc({ '~class': 'Note', text: 'failing' });
    await until(() => events.some((e) => e.name === 'webhook:dead-lettered'), 5000, 'dead letter');
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(events.filter((e) => e.name === 'webhook:failed').map((e) => e.payload.attempts)).toEqual([1, 2]);
    const [dead] = await deliveriesOf(endpoint.id);
    expect(dead).toMatchObject({ status: 'dead', attempts: 3, lastStatus: 500 });
    expect((await call('GET', '/api/private/webhooks/deliveries?status=dead')).body.deliveries.map((d: any) => d.id)).toContain(dead.id);

    hook.answerWith(() => 204);
    expect((await call('POST', `/api/private/webhooks/deliveries/${dead.id}/retry`)).body.status).toBe('pending');
    await until(async () => (await deliveriesOf(endpoint.id))[0].status === 'delivered', 5000, 'delivered after retry');
    expect(hook.received.at(-1)!.headers['webhook-id']).toBe(hook.received[0].headers['webhook-id']);
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    const hook = await receiver(() => 410);
    const { body: endpoint } = await call('POST', '/api/private/webhooks', { url: hook.url, classes: ['Note'], secret: signingSecret() });
    await stack.createDoc({ '~class': 'Note', text: 'gone' });
    await until(() => events.some((e) => e.name === 'webhook:disabled'), 5000, 'disabled');
    expect((await call('GET', `/api/private/webhooks/${endpoint.id}`)).body).toMatchObject({ disabled: true });
    await stack.createDoc({ '~class': 'Note', text: 'after' });
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.received).toHaveLength(1);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
    // enabled again by an admin: new changes are sent again
    hook.answerWith(() => 200);
    expect((await call('PATCH', `/api/private/webhooks/${endpoint.id}`, { disabled: false })).body.disabled).toBe(false);
    await stack.createDoc({ '~class': 'Note', text: 'back' });
    await until(() => hook.received.length === 2, 5000, 'sent after enabling');
  });

  it('is for admins only, checks what it is given, and hides endpoints, deliveries and secrets from replication', async () => {
    expect((await call('GET', '/api/private/webhooks', undefined, user)).body.code).toBe('DS_AUTHZ_ADMIN');
    expect((await call('POST', '/api/private/webhooks', { url: 'http://127.0.0.1:1/x', classes: ['Note'], secret: signingSecret() }, user)).status).toBe(403);
    const bad = [
      [{ url: 'ftp://x', classes: ['Note'], secret: signingSecret() }, 'url'],
      [{ url: 'http://u:p@127.0.0.1/x', classes: ['Note'], secret: signingSecret() }, 'url'],
      [{ url: 'http://127.0.0.1/x', classes: [], secret: signingSecret() }, 'classes'],
      [{ url: 'http://127.0.0.1/x', classes: ['Note'], operations: ['drop'], secret: signingSecret() }, 'operations'],
      [{ url: 'http://127.0.0.1/x', classes: ['Note'], secret: 'short' }, 'secret'],
      [{ url: 'http://127.0.0.1/x', classes: ['Note'] }, 'secret'],
      [{ url: 'http://127.0.0.1/x', classes: ['Note'], secret: signingSecret(), secretHeaders: { 'webhook-id': 'x' } }, 'secretHeaders.webhook-id'],
    ] as const;
    for (const [body, path] of bad) expect((await call('POST', '/api/private/webhooks', body)).body).toMatchObject({ code: 'DS_WEBHOOK_INVALID', path });
    expect((await call('GET', '/api/private/webhooks/~WebhookEndpoint-nope')).body.code).toBe('DS_WEBHOOK_NOT_FOUND');

    const hook = await receiver();
    await call('POST', '/api/private/webhooks', { url: hook.url, classes: ['Note'], secret: signingSecret() });
    await stack.createDoc({ '~class': 'Note', text: 'x' });
    await until(() => hook.received.length === 1, 5000, 'a delivery');
    for (const path of ['_all_docs?include_docs=true', '_changes?include_docs=true']) {
      const text = await (await fetch(`${url}/db/docstack/${path}`, { headers: { authorization: `Bearer ${admin}` } })).text();
      expect(text).not.toMatch(/~WebhookEndpoint|~WebhookDelivery|~Secret-/);
    }
    // nor can a peer push one
    const push = await fetch(`${url}/db/docstack/_bulk_docs`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ docs: [{ _id: '~WebhookEndpoint-x', '~class': '~WebhookEndpoint', url: 'http://127.0.0.1:1' }] }) });
    expect(JSON.stringify(await push.json())).toMatch(/forbidden/);
  });
});
