/**
 * Documents whose id a client chose outside `<Class>-…` (docs/data-model.md, "Ids") on a node:
 * pushed by stock PouchDB, pulled back by it, synced both ways by a docstack client, and served
 * by a class-scoped pull — its first snapshot and the feed after it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Class, createStack } from '../../index.js';
import { browser } from '../../plugins.config.js';
import { tempDir, track, uniqueName } from '../helpers/stack.js';
import { ITEM_SCHEMA, localDb, remoteDb, startNode, TOKEN, type TestNode } from '../plugins/sync/harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

async function node(): Promise<TestNode> {
  const started = await startNode(await tempDir());
  nodes.push(started);
  await Class.create(started.stack, 'Item', 'class', '', ITEM_SCHEMA);
  return started;
}

const listed = async (stack: { storage: { outsideIds(c: string): Promise<string[]> } }) => stack.storage.outsideIds('Item');

describe('explicit ids on a node', () => {
  it('stock PouchDB pushes a document with an explicit id: stored, listed, found, counted; and pulls one back', async () => {
    const server = await node();
    const client = localDb();
    await client.put({ _id: 'inv-2024-001', '~class': 'Item', title: 'pushed', n: 1, '~createTimestamp': new Date().toISOString(), active: true });
    const pushed = (await client.replicate.to(remoteDb(server.url))) as unknown as { docs_written: number; doc_write_failures: number };
    expect(pushed).toMatchObject({ docs_written: 1, doc_write_failures: 0 });
    expect(await listed(server.stack)).toEqual(['inv-2024-001']);
    expect((await server.stack.findDocuments('Item')).map((d) => d._id)).toEqual(['inv-2024-001']);
    expect(await server.stack.countDocuments('Item')).toBe(1);

    await server.stack.createDoc({ '~class': 'Item', title: 'made on the node', n: 2 }, { id: 'srv-7' });
    await client.replicate.from(remoteDb(server.url));
    expect(await client.get('srv-7')).toMatchObject({ '~class': 'Item', title: 'made on the node' });
  });

  it('a docstack client syncs explicit ids both ways, and a class-scoped pull serves them (snapshot, then feed)', async () => {
    const server = await node();
    await server.stack.createDoc({ '~class': 'Item', title: 'first', n: 1 }, { id: 'srv-1' });
    await server.stack.createDoc({ '~class': 'Item', title: 'ranged', n: 2 });
    const client = track(await createStack({ name: uniqueName('ids-sync'), adapter: 'memory', plugins: browser }));
    await client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'] }); // the first pull: a snapshot
    expect((await client.findDocuments('Item')).map((d) => d.title).sort()).toEqual(['first', 'ranged']);
    expect(await listed(client)).toEqual(['srv-1']);
    expect(await client.countDocuments('Item')).toBe(2);

    await client.createDoc({ '~class': 'Item', title: 'from the client', n: 3 }, { id: 'cli-1' });
    // sorts before the snapshot's last id: only the feed after the snapshot can carry it
    await server.stack.createDoc({ '~class': 'Item', title: 'second', n: 4 }, { id: 'abc-2' });
    await client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'] }); // the feed after the snapshot
    expect(await server.stack.getDocument('cli-1')).toMatchObject({ title: 'from the client' });
    expect(await listed(server.stack)).toEqual(['abc-2', 'cli-1', 'srv-1']);
    expect((await client.getDocument('abc-2'))?.title).toBe('second');
    expect(await client.countDocuments('Item')).toBe(4);
    expect(await server.stack.countDocuments('Item')).toBe(4);

    // a purge on the node (the id unlisted there): its tombstone names its class, and follows the scope
    expect(await server.stack.purgeDocuments(['abc-2'])).toBe(1);
    await client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'] });
    expect(await client.storage.get('abc-2')).toBeNull();
    expect(await client.countDocuments('Item')).toBe(3);
    // and the other way: the client's purge reaches the node through the scope's push filter
    expect(await client.purgeDocuments(['cli-1'])).toBe(1);
    await client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'] });
    expect(await server.stack.storage.get('cli-1')).toBeNull();
    expect(await server.stack.countDocuments('Item')).toBe(2);
  });
});
