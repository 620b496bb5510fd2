/**
 * Transactions on replicas are shown whole or not at all, and never hidden forever
 * (docs/transactions.md#across-replication): members overtaken by later transactions of a shared
 * document, members the node refuses, and members outside a filtered sync's classes are all
 * resolved — on the node (its document API, SQL) and on a fresh client pulling from it.
 */
import { describe, expect, it } from 'vitest';
import { Class, createStack, getApi, type ClientStack } from '../../../index.js';
import { syncPlugin } from '../../../plugins/sync/index.js';
import { transactionsPlugin, type Transaction } from '../../../plugins/transactions/index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';
import { createUser } from '../../../server/auth/index.js';
import type { ServerStack } from '../../../plugins.config.js';
import { track, uniqueName } from '../../helpers/stack.js';
import { login, testNode } from '../../server/node-helpers.js';

const ANN = { username: 'ann', password: 'ann password for tests' };

/** A node with Counter, Item (primary key n) and Note, one counter, ann logged in; a client that pulled it all. */
async function setup() {
  const { node } = await testNode();
  const { url } = await node.start();
  const stack = node.stack() as unknown as ServerStack;
  await createUser(stack, ANN.username, ANN.password);
  await Class.create(stack, 'Counter', 'class', '', { value: { type: 'integer' } });
  await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer', primaryKey: true } });
  await Class.create(stack, 'Note', 'class', '', { text: { type: 'string' } });
  const counter = await stack.createDoc({ '~class': 'Counter', value: 0 });
  const { token } = await login(url, ANN.username, ANN.password);
  const remote = `${url}/db/docstack`;
  const sync = (client: BrowserStack, options: { classes?: string[] } = {}) => client.sync({ remote, auth: { token }, batchSize: 7, ...options });
  const client = async () => track(await createStack({ name: uniqueName('tx-replica'), adapter: 'memory', plugins: browser }));
  const a = await client();
  await sync(a);
  return { node, url, token, remote, stack, counter, sync, client, a };
}

/** One transaction: the shared counter + 1 and new Items. */
async function countedItems(stack: BrowserStack, counterId: string, ns: number[], extra?: (tx: Transaction) => Promise<unknown>) {
  await stack.transaction(async (tx) => {
    const counter = (await tx.getDocument(counterId))!;
    await tx.updateDoc(counterId, { value: (counter.value as number) + 1 });
    await tx.createDocs(ns.map((n) => ({ '~class': 'Item', n })));
    await extra?.(tx);
  });
}

const itemNumbers = async (stack: ClientStack) => (await stack.findDocuments('Item')).map((d) => d.n as number).sort((x, y) => x - y);
const pending = (stack: ClientStack) => getApi(stack, transactionsPlugin)!.pending();
const incomplete = (stack: ClientStack) => getApi(stack, transactionsPlugin)!.incomplete();

describe('transactions on replicas', () => {
  it('transactions that each update one shared counter are all shown: on the node (documents, REST, SQL) and on a fresh client', async () => {
    const { url, token, stack, counter, sync, client, a } = await setup();
    const TXS = 12;
    for (let t = 0; t < TXS; t++) await countedItems(a, counter._id, [t * 3, t * 3 + 1, t * 3 + 2]);
    // every transaction's counter revision but the last is overtaken before the push
    await sync(a);
    const all = Array.from({ length: TXS * 3 }, (_, n) => n);
    expect(await itemNumbers(stack)).toEqual(all);
    expect(await stack.getDocument(counter._id)).toMatchObject({ value: TXS });
    expect(pending(stack)).toEqual([]);
    const rest = await fetch(`${url}/api/private/docs/Item?limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await rest.json()) as { docs: unknown[] }).docs).toHaveLength(TXS * 3);
    const sql = await fetch(`${url}/api/private/sql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ statement: 'SELECT n FROM Item' }) });
    expect(((await sql.json()) as { rows: unknown[] }).rows).toHaveLength(TXS * 3);
    expect(await stack.countDocuments('Item')).toBe(TXS * 3);

    const fresh = await client();
    await sync(fresh);
    expect(await itemNumbers(fresh)).toEqual(all);
    expect(await fresh.getDocument(counter._id)).toMatchObject({ value: TXS });
    expect(pending(fresh)).toEqual([]);
  });

  it('a member the node refuses: the node shows the rest and lists the refusal; a fresh client resolves it from the node', async () => {
    const { stack, counter, sync, client, a, remote, token } = await setup();
    // made on the node after a pulled, under an id of its own (an older store; the natural id would make one document)
    const taken = await stack.createDoc({ '~class': 'Item', n: 100 }, { id: 'Item-node-own' });
    const events: unknown[] = [];
    stack.on('tx:incomplete', (e) => events.push(e));
    await countedItems(a, counter._id, [100, 101]);
    const clash = (await a.findDocuments('Item', { n: 100 }))[0];
    await sync(a);

    // the node: the refused member is not stored, the rest is shown, the refusal is listed
    expect(await stack.storage.get(clash._id)).toBeNull();
    expect(await itemNumbers(stack)).toEqual([100, 101]);
    expect((await stack.getDocument(taken._id))?._id).toBe(taken._id);
    expect(await stack.getDocument(counter._id)).toMatchObject({ value: 1 });
    expect(pending(stack)).toEqual([]);
    const [listed] = incomplete(stack);
    expect(listed.missing).toEqual([{ id: clash._id, code: 'DS_UNIQUE_VIOLATION', reason: expect.any(String) }]);
    expect(events).toEqual([expect.objectContaining({ id: listed.id })]);
    // the pusher was told which document was refused, and why
    expect(await getApi(a, syncPlugin)!.denied()).toEqual([expect.objectContaining({ id: clash._id, code: 'DS_UNIQUE_VIOLATION' })]);

    // a fresh client gets the members the node holds, waits, and resolves with the node at the end of the pull
    const fresh = await client();
    await sync(fresh);
    expect(await itemNumbers(fresh)).toEqual([100, 101]);
    expect(await fresh.getDocument(counter._id)).toMatchObject({ value: 1 });
    expect(pending(fresh)).toEqual([]);
    expect(incomplete(fresh)).toEqual([expect.objectContaining({ id: listed.id, missing: [expect.objectContaining({ id: clash._id, code: 'DS_TX_MEMBER_REFUSED' })] })]);
    // peers read the node's resolutions; none may write them
    const published = `${remote}/_local/${encodeURIComponent('~tx/incomplete')}`;
    const read = await fetch(published, { headers: { authorization: `Bearer ${token}` } });
    expect(((await read.json()) as { txs: Record<string, unknown> }).txs).toEqual({ [listed.id]: { seq: listed.seq, missing: [clash._id] } });
    const forged = await fetch(published, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ txs: {} }) });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { code?: string }).code).toBe('DS_AUTHZ_INTERNAL');
    expect((await stack.storage.get<{ txs: Record<string, unknown> }>('_local/~tx/incomplete'))?.txs).toHaveProperty(listed.id);
    // a live sync resolves it when it catches up
    const live = await client();
    const resolved = new Promise((resolve) => live.on('tx:incomplete', resolve));
    const handle = live.sync({ remote, auth: { token }, live: true });
    await expect(resolved).resolves.toMatchObject({ id: listed.id });
    handle.cancel();
    expect(await itemNumbers(live)).toEqual([100, 101]);
  });

  it('a classes-filtered sync that carries part of a transaction shows that part; a wider sync later shows the rest', async () => {
    const { stack, counter, sync, client, a } = await setup();
    await countedItems(a, counter._id, [1, 2], (tx) => tx.createDoc({ '~class': 'Note', text: 'with items 1 and 2' }));
    await sync(a);
    expect(await stack.findDocuments('Note')).toHaveLength(1);

    const items = await client();
    await sync(items, { classes: ['Item'] });
    expect(await itemNumbers(items)).toEqual([1, 2]);
    expect(pending(items)).toEqual([]);
    expect(await items.getDocument(counter._id)).toBeNull(); // never pulled
    await sync(items);
    expect(await items.findDocuments('Note')).toHaveLength(1);
    expect(await items.getDocument(counter._id)).toMatchObject({ value: 1 });
    expect(await itemNumbers(items)).toEqual([1, 2]);
    expect(pending(items)).toEqual([]);
  });
});
