/**
 * SPEC: a document's `_id` is `<ClassName>-<random>` "unless an id is passed to createDoc". An id
 * outside the class's range is accepted (unless it is a system id) and listed beside the class
 * counter (`_local/~ids/<Class>`), so every class scan — finds, counts, a counter rebuilt after a
 * crash, conflicts, purges — sees the document.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Class, createStack, type ClientStack } from '../../index.js';
import { expectRefused, rawDb, track, uniqueName } from '../helpers/stack.js';

const ID = 'inv-2024-001';
let name: string;
let stack: ClientStack;

const open = () => createStack({ name, adapter: 'memory', plugins: [] }).then(track);
const listed = async (s: ClientStack = stack, className = 'Invoice') => ((await s.storage.get<{ ids: string[] }>(`_local/~ids/${className}`)) ?? { ids: [] }).ids;

beforeEach(async () => {
  name = uniqueName('ids');
  stack = await open();
  await Class.create(stack, 'Invoice', 'class', '', { total: { type: 'integer' } });
  await Class.create(stack, 'Customer', 'class', '', { name: { type: 'string' } });
});

describe('an explicit id outside the class range', () => {
  it('is stored, found, counted and listed; a random-id write lists nothing and reads nothing more', async () => {
    await stack.createDoc({ '~class': 'Invoice', total: 1 });
    expect(await stack.storage.get('_local/~ids/Invoice')).toBeNull(); // the common path writes no list
    const doc = await stack.createDoc({ '~class': 'Invoice', total: 2 }, { id: ID });
    expect(doc._id).toBe(ID);
    expect(await stack.getDocument(ID)).toMatchObject({ '~class': 'Invoice', total: 2 });
    expect(await listed()).toEqual([ID]);
    expect((await stack.findDocuments('Invoice')).map((d) => d.total).sort()).toEqual([1, 2]);
    expect((await stack.findDocuments('Invoice', { total: 2 })).map((d) => d._id)).toEqual([ID]);
    expect(await stack.countDocuments('Invoice')).toBe(2);
    expect(await stack.countDocuments('Invoice', { total: { $gt: 1 } })).toBe(1);
    // the other class sees none of it
    expect(await stack.findDocuments('Customer')).toEqual([]);
    // updates and deletes go as for any document
    await stack.updateDoc(ID, { total: 3 });
    await stack.deleteDocument(ID);
    expect(await stack.countDocuments('Invoice')).toBe(1);
    expect((await stack.findDocuments('Invoice', {}, { includeInactive: true })).map((d) => d._id)).toContain(ID);
  });

  it('pages in id order with the range ids, by `after` as well', async () => {
    const ids = ['Invoice-b', 'aaa-1', 'zzz-9', 'Invoice-a', 'k-5'];
    for (const [i, id] of ids.entries()) await stack.createDoc({ '~class': 'Invoice', total: i }, { id });
    const sorted = [...ids].sort();
    expect((await stack.findDocuments('Invoice')).map((d) => d._id)).toEqual(sorted);
    const first = await stack.findDocuments('Invoice', {}, { limit: 2 });
    expect(first.map((d) => d._id)).toEqual(sorted.slice(0, 2));
    const rest = await stack.findDocuments('Invoice', {}, { after: first[1]._id });
    expect(rest.map((d) => d._id)).toEqual(sorted.slice(2));
  });

  it('is counted again when the counter is rebuilt after a crash (a reopened store without it)', async () => {
    await stack.createDoc({ '~class': 'Invoice', total: 1 });
    await stack.createDoc({ '~class': 'Invoice', total: 2 }, { id: ID });
    await stack.close();
    // what a crash leaves: a counter that cannot be trusted (gone here: the class is counted by a scan)
    const db = rawDb(await open());
    await db.remove((await db.get('_local/~count/Invoice')) as never);
    const reopened = await open();
    expect(await reopened.countDocuments('Invoice')).toBe(2);
    expect((await reopened.findDocuments('Invoice')).map((d) => d._id)).toContain(ID);
  });

  it('stays listed when its write fails after the list was written (superset), and the stale entry is harmless', async () => {
    await stack.createDoc({ '~class': 'Customer', name: 'c' }, { id: 'shared-1' });
    await expectRefused(stack.createDoc({ '~class': 'Invoice', total: 1 }, { id: 'shared-1' }), 'DS_DOC_EXISTS');
    expect(await stack.findDocuments('Invoice')).toEqual([]);
    expect(await stack.countDocuments('Invoice')).toBe(0);
    expect(await stack.findDocuments('Customer')).toHaveLength(1);
  });

  it('is taken off the list by a purge', async () => {
    await stack.createDoc({ '~class': 'Invoice', total: 2 }, { id: ID });
    expect(await stack.purgeDocuments([ID])).toBe(1);
    expect(await listed()).toEqual([]);
    expect(await stack.countDocuments('Invoice')).toBe(0);
  });

  it('arrives from a peer (ingest) listed and found, as the peer wrote it', async () => {
    const peer = await createStack({ name: uniqueName('ids-peer'), adapter: 'memory', plugins: [] }).then(track);
    await Class.create(peer, 'Invoice', 'class', '', { total: { type: 'integer' } });
    await peer.createDoc({ '~class': 'Invoice', total: 7 }, { id: ID });
    const revision = await peer.storage.replication.get(ID, { revs: true });
    const [result] = await stack.ingest([revision]);
    expect(result).toMatchObject({ id: ID, ok: true });
    expect(await listed()).toEqual([ID]);
    expect((await stack.findDocuments('Invoice')).map((d) => d._id)).toEqual([ID]);
    expect(await stack.countDocuments('Invoice')).toBe(1);
  });
});

describe('the ids refused, each with its code and nothing written', () => {
  const cases: [string, string][] = [
    ['_design/x', 'DS_DOC_ID_RESERVED'],
    ['~Job-1', 'DS_DOC_ID_RESERVED'],
    ['domain-owns', 'DS_DOC_ID_RESERVED'],
    ['Customer', 'DS_DOC_ID_RESERVED'], // a class's name: the shape of a class document's id
    ['invoice2024', 'DS_DOC_ID_RESERVED'],
    ['Customer-7', 'DS_DOC_ID_OTHER_CLASS'],
    ['class-1', 'DS_DOC_ID_OTHER_CLASS'], // the meta-class's range
    ['', 'DS_DOC_ID_INVALID'],
  ];
  it.each(cases)('%j → %s', async (id, code) => {
    await expectRefused(stack.createDoc({ '~class': 'Invoice', total: 1 }, { id }), code as never, '_id');
    expect(await stack.countDocuments('Invoice')).toBe(0);
    expect(await listed()).toEqual([]);
    expect(await stack.findDocuments('Customer')).toEqual([]);
  });

  it('a peer document with such an id is refused by ingest with the same code', async () => {
    const results = await stack.ingest([
      { _id: 'Customer-9', _rev: '1-a', '~class': 'Invoice', total: 1 },
      { _id: 'nodash', _rev: '1-b', '~class': 'Invoice', total: 1 },
    ], { hold: false });
    expect(results.map((r) => !r.ok && r.code)).toEqual(['DS_DOC_ID_OTHER_CLASS', 'DS_DOC_ID_RESERVED']);
    expect(await listed()).toEqual([]);
  });

  it('an id already taken in the class is the existing conflict', async () => {
    await stack.createDoc({ '~class': 'Invoice', total: 1 }, { id: ID });
    await expectRefused(stack.createDoc({ '~class': 'Invoice', total: 2 }, { id: ID }), 'DS_DOC_EXISTS');
    expect(await stack.countDocuments('Invoice')).toBe(1);
  });
});

describe('a live class object', () => {
  it('emits change events for its out-of-range documents, not for other classes', async () => {
    const invoices = await stack.getClass('Invoice');
    const seen: string[] = [];
    invoices.on('change', (c: { id: string }) => seen.push(c.id));
    await stack.createDoc({ '~class': 'Invoice', total: 1 }, { id: ID });
    await stack.createDoc({ '~class': 'Customer', name: 'c' }, { id: 'cust-1' });
    await stack.updateDoc(ID, { total: 2 });
    await waitFor(() => seen.filter((id) => id === ID).length === 2);
    expect(seen).not.toContain('cust-1');
  });
});

async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
