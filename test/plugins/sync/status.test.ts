import { afterEach, describe, expect, it } from 'vitest';
import { DocstackError, getApi } from '../../../index.js';
import { syncPlugin } from '../../../plugins/sync/index.js';
import type { SyncRefusal, SyncStatus } from '../../../plugins/sync/index.js';
import { rawDb } from '../../helpers/stack.js';
import { nodeAndClient, TOKEN, type TestNode } from './harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

const setup = () => nodeAndClient(nodes, 'status');

const ANN = { username: 'ann', password: 'ann-password' };

describe('sync status', () => {
  it('a sync with a refusal on pull is not a plain success: counts, refused (direction pull), denied(), sync:denied, status events', async () => {
    const { server, client } = await setup();
    await server.stack.createDocs([{ '~class': 'Item', title: 'one', n: 1 }, { '~class': 'Item', title: 'two', n: 2 }]);
    // written around the node's pipeline: this client's validation refuses it
    await rawDb(server.stack).put({ _id: 'Item-raw', '~class': 'Item', title: 42 });
    const announced: SyncRefusal[] = [];
    client.on('sync:denied', (entry: SyncRefusal) => announced.push(entry));
    const handle = client.sync({ remote: server.url, auth: { token: TOKEN } });
    const statuses: SyncStatus[] = [];
    handle.on('status', (s: SyncStatus) => statuses.push(s));
    const result = await handle;

    expect(result.ok).toBe(false);
    expect(result.state).toBe('complete');
    expect(result.error).toBeNull();
    expect(result.refused).toEqual([expect.objectContaining({ id: 'Item-raw', direction: 'pull', code: 'DS_VALIDATION_TYPE' })]);
    expect(result.pulled).toBe(3); // the two Items and their class: each side's own engine documents are not counted
    expect(result.pushed).toBe(0); // this client wrote nothing: its engine documents went (the node ignores them), not counted
    expect(result.pendingLocal).toBe(0);
    expect(result.lastSuccess).toEqual(expect.any(String));
    expect(handle.status()).toMatchObject({ ok: false, state: 'complete', pulled: result.pulled, pendingLocal: 0 });
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.at(-1)).toMatchObject({ state: 'complete', ok: false });
    expect(announced).toContainEqual(expect.objectContaining({ id: 'Item-raw', direction: 'pull' }));
    expect(await getApi(client, syncPlugin)!.denied()).toContainEqual(expect.objectContaining({ id: 'Item-raw', direction: 'pull', code: 'DS_VALIDATION_TYPE' }));
    expect(await client.getDocument('Item-raw')).toBeNull();
  });

  it('counts pending local changes; a node that cannot be reached is DS_SYNC_NETWORK, with the pending count and the last success kept', async () => {
    const { server, client } = await setup();
    const clean = await client.sync({ remote: server.url, auth: { token: TOKEN } });
    expect(clean).toMatchObject({ ok: true, pendingLocal: 0 });
    await client.createDocs([{ '~class': 'Item', title: 'offline a', n: 1 }, { '~class': 'Item', title: 'offline b', n: 2 }]);
    await server.stop();
    nodes.splice(nodes.indexOf(server), 1);
    const handle = client.sync({ remote: server.url, auth: { token: TOKEN } });
    const failure = await handle.then(() => null, (err: unknown) => err);
    expect(failure).toBeInstanceOf(DocstackError);
    expect(failure).toMatchObject({ code: 'DS_SYNC_NETWORK', cause: expect.anything() });
    expect(handle.status()).toMatchObject({ state: 'error', ok: false, pendingLocal: 2, lastSuccess: clean.lastSuccess, error: failure });
  });

  it('one login for every sync of the stack to the same node as the same user; a wrong password is DS_SYNC_LOGIN, also for a live sync', async () => {
    const { server, client } = await setup();
    await client.sync({ remote: server.url, auth: ANN });
    await client.sync({ remote: server.url, auth: ANN });
    const live = client.sync({ remote: server.url, auth: ANN, live: true });
    const created = await client.createDoc({ '~class': 'Item', title: 'live', n: 3 });
    await waitFor(async () => (await server.stack.getDocument(created._id)) !== null);
    live.cancel();
    await live;
    expect(server.logins).toBe(1);

    const wrong = { username: 'ann', password: 'nope' };
    const oneShot = await client.sync({ remote: server.url, auth: wrong }).then(() => null, (err: unknown) => err);
    expect(oneShot).toBeInstanceOf(DocstackError);
    expect(oneShot).toMatchObject({ code: 'DS_SYNC_LOGIN' });
    // live with retry: a wrong password stays wrong — it stops instead of logging in at every retry
    const liveWrong = await client.sync({ remote: server.url, auth: wrong, live: true, maxRetryDelay: 100 }).then(() => null, (err: unknown) => err);
    expect(liveWrong).toMatchObject({ code: 'DS_SYNC_LOGIN' });
    expect(server.logins).toBe(3); // one per sync with the wrong password: its other requests do not log in again
  });

  it('a live sync that loses its node: the error and the pending local writes show, the last success stays', async () => {
    const { server, client } = await setup();
    const live = client.sync({ remote: server.url, auth: { token: TOKEN }, live: true, maxRetryDelay: 200 });
    await waitFor(async () => live.status().state === 'paused' && live.status().pendingLocal === 0);
    const synced = live.status().lastSuccess;
    expect(synced).toEqual(expect.any(String));
    await server.stop();
    nodes.splice(nodes.indexOf(server), 1);
    await client.createDocs([{ '~class': 'Item', title: 'while offline', n: 1 }]);
    await waitFor(async () => live.status().error?.code === 'DS_SYNC_NETWORK' && live.status().pendingLocal === 1);
    expect(live.status()).toMatchObject({ ok: false, lastSuccess: synced });
    live.cancel();
    expect(await live).toMatchObject({ cancelled: true, pendingLocal: 1 });
  });

  it('documents the node holds (its _bulk_docs line says held) are listed with what they wait for, not as refused, until its feed lists them', async () => {
    const { server, client } = await setup();
    await client.sync({ remote: server.url, auth: { token: TOKEN } });
    const [waiting] = await client.createDocs([{ '~class': 'Item', title: 'waits', n: 1 }]);
    server.holding.add(waiting._id);
    const result = await client.sync({ remote: server.url, auth: { token: TOKEN } });
    expect(result.ok).toBe(true);
    expect(result.refused).toEqual([]);
    expect(result.held).toEqual([expect.objectContaining({ id: waiting._id, rev: waiting._rev, where: 'remote', code: 'DS_INGEST_WAITING', waitingFor: ['Parent'] })]);
    expect(result.pushed).toBe(1);
    expect(await server.stack.getDocument(waiting._id)).toBeNull();

    // live: held again, then the node applies it (its feed lists the revision): no longer held
    const [later] = await client.createDocs([{ '~class': 'Item', title: 'waits too', n: 2 }]);
    server.holding.add(later._id);
    const live = client.sync({ remote: server.url, auth: { token: TOKEN }, live: true });
    await waitFor(async () => live.status().held.some((h) => h.id === later._id));
    server.holding.clear();
    await server.stack.ingest([await rawDb(client).get(later._id, { revs: true })], { origin: 'replication' });
    await waitFor(async () => live.status().held.every((h) => h.id !== later._id));
    expect(live.status().ok).toBe(true);
    live.cancel();
    await live;
  });
});

describe('sync status: documents this stack holds (the kernel holding interface: heldDocuments, ingest:released, ingest:refused)', () => {
  it('lists them at the start, drops the released one, records the refused one as a pull refusal', async () => {
    const { server, client } = await setup();
    const since = new Date().toISOString();
    // what a stack with ingest holding answers (another slice builds it): two pulled documents waiting for their class
    Object.assign(client, {
      heldDocuments: async () => ['Order-1', 'Order-2'].map((id) => ({ id, rev: '1-a', code: 'DS_INGEST_WAITING', reason: 'class Order has not arrived', waitingFor: ['Order'], since })),
    });
    const live = client.sync({ remote: server.url, auth: { token: TOKEN }, live: true });
    await waitFor(async () => live.status().state === 'paused');
    expect(live.status().held.map((h) => [h.id, h.where])).toEqual([['Order-1', 'local'], ['Order-2', 'local']]);
    expect(live.status().ok).toBe(true);
    client.emit('ingest:released', { id: 'Order-1' });
    client.emit('ingest:refused', { id: 'Order-2', code: 'DS_VALIDATION_TYPE', reason: 'total must be a number' });
    expect(live.status().held).toEqual([]);
    expect(live.status()).toMatchObject({ ok: false, refused: [expect.objectContaining({ id: 'Order-2', direction: 'pull', code: 'DS_VALIDATION_TYPE' })] });
    await waitFor(async () => (await getApi(client, syncPlugin)!.denied()).some((d) => d.id === 'Order-2' && d.direction === 'pull'));
    live.cancel();
    await live;
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
