import { describe, expect, it } from 'vitest';
import { Class, createStack, getApi } from '../../../index.js';
import { authorityPlugin, isPending } from '../../../plugins/authority/index.js';
import { browser, server } from '../../../plugins.config.js';
import { track, uniqueName } from '../../helpers/stack.js';

const open = async (plugins: typeof browser | typeof server = browser) => track(await createStack({ name: uniqueName('authority'), adapter: 'memory', plugins }));

describe('authority plugin: config keys', () => {
  it('unique on single scalars only, sequence on single, optional, unencrypted integers only', async () => {
    const stack = await open();
    const refused = (schema: Record<string, Record<string, unknown>>) => expect(Class.create(stack, `C${Math.random().toString(36).slice(2, 8)}`, 'class', '', schema)).rejects.toMatchObject({ code: 'DS_ATTRIBUTE_CONFIG_INVALID' });
    await refused({ tags: { type: 'string', isArray: true, unique: true } });
    await refused({ meta: { type: 'object', unique: true } });
    await refused({ code: { type: 'string', primaryKey: true, unique: true } });
    await refused({ code: { type: 'string', unique: 'yes' } });
    await refused({ n: { type: 'string', sequence: 'x' } });
    await refused({ n: { type: 'integer', sequence: 'bad name' } });
    await refused({ n: { type: 'integer', sequence: 'n', mandatory: true } });
    await refused({ n: { type: 'integer', sequence: 'n', primaryKey: true } });
    const ok = await Class.create(stack, 'Fine', 'class', '', { code: { type: 'string', unique: true }, n: { type: 'integer', sequence: 'fine-numbers' } });
    expect(ok.model.schema.n).toMatchObject({ sequence: 'fine-numbers' });
    expect(ok.model.schema.code).toMatchObject({ unique: true });
  });
});

describe('authority plugin on a client', () => {
  it('writes a sequence attribute pending when no node is connected; the marker is the node\'s to clear', async () => {
    const stack = await open();
    await Class.create(stack, 'Invoice', 'class', '', { title: { type: 'string' }, number: { type: 'integer', sequence: 'invoice' } });
    const doc = await stack.createDoc({ '~class': 'Invoice', title: 'a' });
    expect(doc).toMatchObject({ '~pending': ['number'] });
    expect(doc.number).toBeUndefined();
    expect(isPending(doc, 'number')).toBe(true);
    expect(isPending({ number: 3 }, 'number')).toBe(false);
    for (const input of [{ number: 1 }, { '~pending': [] }, { '~pending': ['number'] }]) {
      await expect(stack.createDoc({ '~class': 'Invoice', title: 'b', ...input })).rejects.toMatchObject({ code: 'DS_SEQUENCE_READONLY' });
    }
    await expect(stack.updateDoc(doc._id, { '~pending': null })).rejects.toMatchObject({ code: 'DS_SEQUENCE_READONLY' });
    // other edits keep the marker
    expect(await stack.updateDoc(doc._id, { title: 'edited offline' })).toMatchObject({ title: 'edited offline', '~pending': ['number'] });
    expect((await stack.findDocuments('Invoice')).length).toBe(1);
    await expect(getApi(stack, authorityPlugin)!.next('invoice')).rejects.toMatchObject({ code: 'DS_AUTHORITY_OFFLINE' });
  });

  it('keeps unique values unique on one device, frees a value its document gave up, and takes what a pull brings', async () => {
    const stack = await open();
    await Class.create(stack, 'Person', 'class', '', { email: { type: 'string', unique: true } });
    const ann = await stack.createDoc({ '~class': 'Person', email: 'ann@example.org' });
    await expect(stack.createDoc({ '~class': 'Person', email: 'ann@example.org' })).rejects.toMatchObject({ code: 'DS_UNIQUE_VIOLATION', details: { existingId: ann._id } });
    await expect(stack.createDocs([{ '~class': 'Person', email: 'b@example.org' }, { '~class': 'Person', email: 'b@example.org' }])).rejects.toMatchObject({ code: 'DS_UNIQUE_VIOLATION' });
    expect((await stack.findDocuments('Person')).length).toBe(1);
    await stack.updateDoc(ann._id, { email: 'ann@elsewhere.org' });
    const bea = await stack.createDoc({ '~class': 'Person', email: 'ann@example.org' }); // freed by the update
    await stack.deleteDocument(bea._id);
    await stack.createDoc({ '~class': 'Person', email: 'ann@example.org' }); // freed by the delete
    // a pulled document (the node decided) takes the value; stored, not refused
    const results = await stack.ingest([{ _id: 'Person-from-node', _rev: '1-abc', '~class': 'Person', email: 'ann@elsewhere.org', '~createTimestamp': new Date().toISOString(), active: true }], { origin: 'replication', keyConflicts: 'report' });
    expect(results[0]).toMatchObject({ ok: true });
  });
});

describe('authority plugin on the node', () => {
  it('draws numbers from durable counters, numbers documents that arrive pending, and refuses a duplicate from a peer', async () => {
    const node = await open(server);
    await Class.create(node, 'Invoice', 'class', '', { number: { type: 'integer', sequence: 'invoice' }, code: { type: 'string', unique: true } });
    expect(await node.createDoc({ '~class': 'Invoice', code: 'a' })).toMatchObject({ number: 1 });
    expect(await node.authority.next('invoice', 10)).toEqual({ first: 2, last: 11 });
    await expect(node.authority.next('nobody', 1)).rejects.toMatchObject({ code: 'DS_SEQUENCE_UNKNOWN' });
    await expect(node.authority.next('invoice', 0)).rejects.toMatchObject({ code: 'DS_SEQUENCE_NAME_INVALID' });
    const assigned: unknown[] = [];
    node.on('sequence:assigned', (e) => assigned.push(e));
    const base = { '~class': 'Invoice', '~createTimestamp': new Date().toISOString(), active: true };
    const results = await node.ingest([
      { _id: 'Invoice-p', _rev: '1-aaa', ...base, code: 'p', '~pending': ['number'] },
      { _id: 'Invoice-dup', _rev: '1-bbb', ...base, code: 'a' },
    ]);
    expect(results).toMatchObject([{ ok: true }, { ok: false, code: 'DS_UNIQUE_VIOLATION' }]);
    const numbered = await node.getDocument('Invoice-p');
    expect(numbered).toMatchObject({ number: 12 });
    expect(numbered?.['~pending']).toBeUndefined();
    expect(numbered?._rev).toMatch(/^2-/);
    expect(assigned).toEqual([{ id: 'Invoice-p', className: 'Invoice', attribute: 'number', sequence: 'invoice', value: 12 }]);
    // a claim for a document not written yet holds the value for it
    expect(await node.authority.claim('Invoice', 'code', 'held', 'Invoice-later')).toEqual({ claimed: true, id: 'Invoice-later' });
    expect(await node.authority.claim('Invoice', 'code', 'held', 'Invoice-other')).toEqual({ claimed: false, id: 'Invoice-later' });
    await expect(node.createDoc({ '~class': 'Invoice', code: 'held' })).rejects.toMatchObject({ code: 'DS_UNIQUE_VIOLATION' });
    expect(await node.createDoc({ '~class': 'Invoice', code: 'held' }, { id: 'Invoice-later' })).toMatchObject({ code: 'held' });
  });

  it('a peer\'s edit made before it pulled its number keeps the number the node gave', async () => {
    const node = await open(server);
    await Class.create(node, 'Invoice', 'class', '', { title: { type: 'string' }, number: { type: 'integer', sequence: 'invoice' } });
    const base = { '~class': 'Invoice', '~createTimestamp': new Date().toISOString(), active: true, '~pending': ['number'] };
    const first = 'a'.repeat(32);
    await node.ingest([{ _id: 'Invoice-e', _rev: `1-${first}`, ...base, title: 'v1' }]);
    expect(await node.getDocument('Invoice-e')).toMatchObject({ number: 1 });
    // the peer edited its pending copy offline: a sibling of the node's numbered revision, which wins
    const edit = 'f'.repeat(32);
    const [result] = await node.ingest([{ _id: 'Invoice-e', _rev: `2-${edit}`, _revisions: { start: 2, ids: [edit, first] }, ...base, title: 'v2' }]);
    expect(result).toMatchObject({ ok: true });
    const now = await node.getDocument('Invoice-e');
    expect(now).toMatchObject({ title: 'v2', number: 1 });
    expect(now?.['~pending']).toBeUndefined();
    expect(await node.authority.current('invoice')).toBe(1); // no second number drawn
  });
});
