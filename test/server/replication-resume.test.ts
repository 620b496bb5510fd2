import { afterEach, describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { tempDir } from '../helpers/stack.js';
import { ITEM_SCHEMA, itemDoc, localDb, remoteDb, startNode, type TestNode } from '../plugins/sync/harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

type Replication = { docs_written: number; docs_read: number; doc_write_failures: number; last_seq: number };

describe('replication across a server restart', () => {
  it('resumes a push from its checkpoint: nothing lost, nothing duplicated, not from zero', async () => {
    const dir = await tempDir();
    let server = await startNode(dir);
    await Class.create(server.stack, 'Item', 'class', '', ITEM_SCHEMA);
    const port = Number(new URL(server.url).port);
    const client = localDb();
    await client.bulkDocs(Array.from({ length: 1000 }, (_, i) => itemDoc(i)));

    // stop the node (HTTP server and stack) once three batches of 100 are written
    const first = client.replicate.to(remoteDb(server.url), { batch_size: 100, batches_limit: 1 });
    let stopping: Promise<void> | null = null;
    first.on('change', (info) => {
      if ((info as unknown as Replication).docs_written >= 300 && !stopping) stopping = server.stop();
    });
    await expect(first).rejects.toBeDefined();
    await stopping;

    // same data dir, same address: the replication id (and so the checkpoint) is the same
    server = await startNode(dir, { port });
    nodes.push(server);
    const storedBefore = (await server.stack.storage.range({ prefix: 'Item-' })).length;
    expect(storedBefore).toBeGreaterThanOrEqual(300);
    expect(storedBefore).toBeLessThan(1000);

    const second = (await client.replicate.to(remoteDb(server.url), { batch_size: 100 })) as unknown as Replication;
    expect(second.doc_write_failures).toBe(0);
    // it started from the checkpoint, not from zero (at most one batch is read again)
    expect(second.docs_read).toBeLessThanOrEqual(1000 - storedBefore + 100);
    expect(second.docs_read).toBeLessThan(1000);

    const rows = await server.stack.storage.range({ prefix: 'Item-' });
    expect(rows.length).toBe(1000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(1000);
    // one revision each: nothing was written twice as a new edit
    expect(rows.every((r) => r.rev.startsWith('1-'))).toBe(true);
    const local = await client.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff' });
    expect(rows.map((r) => `${r.id}@${r.rev}`)).toEqual(local.rows.map((r) => `${r.id}@${r.value.rev}`));

    // a third run has nothing left to do
    const third = (await client.replicate.to(remoteDb(server.url))) as unknown as Replication;
    expect(third.docs_read).toBe(0);
  });

  it('a pull resumes after a restart too, and the node keeps its replication id', async () => {
    const dir = await tempDir();
    let server = await startNode(dir);
    await Class.create(server.stack, 'Item', 'class', '', ITEM_SCHEMA);
    await server.stack.createDocs(Array.from({ length: 500 }, (_, i) => ({ '~class': 'Item', title: `s ${i}`, n: i })));
    const port = Number(new URL(server.url).port);
    const client = localDb();
    const first = (await client.replicate.from(remoteDb(server.url))) as unknown as Replication;
    expect(first.docs_written).toBeGreaterThanOrEqual(501); // the documents, their class and the system classes
    await server.stop();

    server = await startNode(dir, { port });
    nodes.push(server);
    await server.stack.createDocs([{ '~class': 'Item', title: 'after restart', n: 1 }]);
    const second = (await client.replicate.from(remoteDb(server.url))) as unknown as Replication;
    expect(second.docs_read).toBe(1);
  });
});
