import { afterEach, describe, expect, it } from 'vitest';
import { PouchDB } from '../plugins/sync/harness.js';
import { memoryStack, uniqueName } from '../helpers/stack.js';
import { expectRefused } from '../helpers/refusals.js';
import { replicateIngest } from '../helpers/replicate.js';
import { ADMIN, testNode } from './node-helpers.js';

/**
 * Another client of the specification writes class documents in its shape, `{ name, type,
 * config, description? }`, and an older docstack flat. A stock PouchDB client (memory adapter)
 * pushes both to a real node (leveldb, 127.0.0.1, port 0); the node, then a docstack client
 * that replicates from it, accept them as they are and enforce them.
 */
const clients: PouchDB.Database[] = [];
afterEach(async () => {
  for (const db of clients.splice(0)) await db.destroy().catch(() => undefined);
});

const now = '2026-01-01T00:00:00.000Z';
const classDoc = (name: string, schema: Record<string, unknown>) => ({
  _id: name, '~class': 'class', '~createTimestamp': now, active: true, name, description: '', parentClass: null,
  schema, triggers: [], simple: false, ephemeral: false, tenants: [], defaultScope: null,
});
const doc = (id: string, fields: Record<string, unknown>) => ({ _id: id, '~class': id.split('-')[0], '~createTimestamp': now, active: true, ...fields });

describe('class documents in the specification\'s shape, by replication', () => {
  it('a stock PouchDB client pushes a spec-shaped and a flat class with documents: the node and a client accept and enforce both', async () => {
    const { node } = await testNode();
    const { url } = await node.start();
    const local = new PouchDB(uniqueName('spec-push'), { adapter: 'memory' });
    clients.push(local);
    const shelfSchema = { label: { name: 'label', type: 'string', config: { maxLength: 8, mandatory: true }, description: 'front' } };
    await local.bulkDocs([
      classDoc('Shelf', shelfSchema),
      classDoc('Bin', { size: { name: 'size', type: 'integer', max: 3 } }),
      doc('Shelf-1', { label: 'top' }),
      doc('Shelf-2', { label: 'far too long a label' }),
      doc('Bin-1', { size: 2 }),
    ]);
    const remote = new PouchDB(`${url}/db/docstack`, { adapter: 'http', auth: { username: ADMIN.username, password: ADMIN.password } } as never);
    const pushed = await local.replicate.to(remote);
    expect(pushed.docs_written).toBe(4);
    expect(pushed.doc_write_failures).toBe(1); // Shelf-2: its label is over maxLength

    const stack = node.stack();
    expect((await stack.storage.get('Shelf'))?.schema).toEqual(shelfSchema); // stored as it came
    expect((await stack.requireClass('Shelf')).schema.label).toEqual({ name: 'label', type: 'string', maxLength: 8, mandatory: true, description: 'front' });
    expect(await stack.getDocument('Shelf-1')).toMatchObject({ label: 'top' });
    expect(await stack.getDocument('Shelf-2')).toBeNull();
    await stack.createDoc({ '~class': 'Bin', size: 1 });
    await expectRefused(stack.createDoc({ '~class': 'Bin', size: 9 }), 'DS_VALIDATION_RANGE');

    // a docstack client pulling from the node: writable classes, same rules, no revision of its own
    const client = await memoryStack();
    await replicateIngest(stack, client);
    expect((await client.storage.get('Shelf'))?._rev).toBe((await stack.storage.get('Shelf'))?._rev);
    expect(await client.getDocument('Shelf-1')).toMatchObject({ label: 'top' });
    await client.createDoc({ '~class': 'Shelf', label: 'low' });
    await expectRefused(client.createDoc({ '~class': 'Shelf', label: 'much too long' }), 'DS_VALIDATION_MAX_LENGTH');
    await expectRefused(client.createDoc({ '~class': 'Bin', size: 4 }), 'DS_VALIDATION_RANGE');
  }, 60_000);
});
