/**
 * How a peer resolves a transaction's members, document by document (stack.ingest as the node's
 * `_bulk_docs` and stack.sync use it): every read path agrees on what is hidden, a member overtaken
 * by a later transaction counts, a refused member resolves it with a listing, and all of it
 * survives a reopen. docs/transactions.md#across-replication.
 */
import { describe, expect, it } from 'vitest';
import { Class, createStack, getApi, type ClientStack, type Doc } from '../../../index.js';
import { transactionsPlugin } from '../../../plugins/transactions/index.js';
import { browserWithSql } from '../../../plugins.config.js';
import { memoryStack, rawDb, track, uniqueName } from '../../helpers/stack.js';

type SqlStack = ClientStack & { sql(statement: string): Promise<unknown> };

/** A source with Counter and Item (primary key n) and one counter; its documents as a peer sends them. */
async function source() {
  const a = await memoryStack();
  await Class.create(a, 'Counter', 'class', '', { value: { type: 'integer' } });
  await Class.create(a, 'Item', 'class', '', { n: { type: 'integer', primaryKey: true }, label: { type: 'string' } });
  const counter = await a.createDoc({ '~class': 'Counter', value: 0 });
  const docs = async (ids?: string[]) => {
    const rows = (await a.storage.replication.allDocs({ include_docs: true, ...(ids ? { keys: ids } : {}) })).rows;
    return rows.flatMap((r) => ('doc' in r && r.doc && !r.id.startsWith('_') ? [r.doc as unknown as Doc] : []));
  };
  const tx = async (ns: number[], more?: Parameters<typeof a.transaction>[0]) =>
    a.transaction(async (t) => {
      const c = (await t.getDocument(counter._id))!;
      await t.updateDoc(counter._id, { value: (c.value as number) + 1 });
      const made = await t.createDocs(ns.map((n) => ({ '~class': 'Item', n })));
      await more?.(t);
      return made.map((d) => d._id);
    });
  return { a, counter, docs, tx };
}

/** A peer holding what the source held so far (classes, the counter). */
async function peer(docs: Doc[], name = uniqueName('tx-peer')) {
  const b = track(await createStack({ name, adapter: 'memory', plugins: browserWithSql })) as unknown as SqlStack;
  await b.ingest(docs);
  return { b, name };
}

const api = (stack: ClientStack) => getApi(stack, transactionsPlugin)!;
const reopen = async (name: string) => track(await createStack({ name, adapter: 'memory', plugins: browserWithSql })) as unknown as SqlStack;

/** What each read path says about the Items: all must agree. */
async function seen(b: SqlStack, ids: string[]) {
  const got = await Promise.all(ids.map((id) => b.getDocument(id)));
  const rows = (await b.sql('SELECT n FROM Item')) as { n: number }[];
  return {
    byId: got.filter(Boolean).length,
    found: (await b.findDocuments('Item')).length,
    counted: await b.countDocuments('Item'),
    byKey: await b.countDocuments('Item', { n: 1 }),
    sql: rows.length,
  };
}

describe('a transaction arriving at a peer', () => {
  it('is hidden from every read path until its last member arrives, across a reopen', async () => {
    const { counter, docs, tx } = await source();
    const { b, name } = await peer(await docs());
    const ids = await tx([1, 2, 3]);
    const members = await docs([...ids, counter._id]);
    await b.ingest(members.slice(0, 2));
    const none = { byId: 0, found: 0, counted: 0, byKey: 0, sql: 0 };
    expect(await seen(b, ids)).toEqual(none);
    expect(api(b).pending()).toEqual([expect.objectContaining({ size: 4, expected: 4, arrived: 2 })]);
    await b.close();
    const again = await reopen(name);
    expect(await seen(again, ids)).toEqual(none);
    expect(await again.getDocument(counter._id)).toMatchObject({ value: 0 }); // its revision before the transaction
    const shown: { members: string[] }[] = [];
    again.on('tx:shown', (e) => shown.push(e));
    await again.ingest(members.slice(2));
    expect(await seen(again, ids)).toEqual({ byId: 3, found: 3, counted: 3, byKey: 1, sql: 3 });
    expect(shown.map((e) => [...e.members].sort())).toEqual([[...ids, counter._id].sort()]);
    expect(await again.getDocument(counter._id)).toMatchObject({ value: 1 });
    expect(api(again).pending()).toEqual([]);
  });

  it('counts a member overtaken by a later transaction: a shared counter (listed) and an item it created (owed)', async () => {
    const { a, counter, docs, tx } = await source();
    const { b } = await peer(await docs());
    const first = await tx([1, 2]);
    // the second transaction rewrites the counter and the first one's item 1 (a key never changes: its label)
    const second = await tx([3], async (t) => void (await t.updateDoc(first[0], { label: 'ten' })));
    expect((await a.storage.get(first[0]))?.['~tx']).toMatchObject({ owes: [expect.any(String)] });
    // the peer gets every document at its latest revision only: the first transaction's counter and item 1 never come
    await b.ingest(await docs([first[1]]));
    expect(api(b).pending()).toHaveLength(1);
    await b.ingest(await docs([...second, first[0], counter._id]));
    expect(api(b).pending()).toEqual([]);
    expect((await b.findDocuments('Item')).map((d) => d.n).sort()).toEqual([1, 2, 3]);
    expect(await b.getDocument(first[0])).toMatchObject({ n: 1, label: 'ten' });
    expect(await b.getDocument(counter._id)).toMatchObject({ value: 2 });
  });

  it('counts a listed member that arrives as a tombstone (removed for good after the transaction)', async () => {
    const { a, counter, docs, tx } = await source();
    const { b } = await peer(await docs());
    const ids = await tx([1]);
    const current = (await a.storage.get(counter._id))!;
    await rawDb(a).remove(counter._id, current._rev!);
    const [tombstone] = (await a.storage.replication.allDocs({ keys: [counter._id] })).rows as { value?: { rev: string } }[];
    await b.ingest(await docs(ids));
    expect(api(b).pending()).toHaveLength(1);
    await b.ingest([{ _id: counter._id, _rev: tombstone.value!.rev, _deleted: true, _revisions: { start: 3, ids: [tombstone.value!.rev, current._rev!, counter._rev!].map((r) => r.split('-')[1]) } }]);
    expect(api(b).pending()).toEqual([]);
    expect(await b.storage.get(counter._id)).toBeNull(); // removed here too
    expect(await b.findDocuments('Item')).toHaveLength(1);
  });

  it('an update outside any transaction keeps only what the document owes', async () => {
    const { a, counter, tx } = await source();
    const [item] = await tx([1]);
    await a.updateDoc(item, { label: 'five' });
    await a.updateDoc(counter._id, { value: 7 });
    const stamp = (await a.storage.get(item))?.['~tx'] as { owes?: string[]; id?: string };
    expect(stamp).toEqual({ owes: [expect.any(String)] }); // created by the transaction: owed to it
    expect((await a.storage.get(counter._id))?.['~tx']).toBeUndefined(); // listed by it: nothing owed
  });

  it('a member refused here resolves it: the rest shown, the refusal listed and announced, kept across a reopen', async () => {
    const { counter, docs, tx } = await source();
    const { b, name } = await peer(await docs());
    // the peer's own n = 1 under an id of its own (an older store): the transaction's will clash
    // (under the natural id both sides share, it would be one document: test/kernel/natural-ids.test.ts)
    await b.createDoc({ '~class': 'Item', n: 1 }, { id: 'Item-peer-own' });
    const events: unknown[] = [];
    b.on('tx:incomplete', (e) => events.push(e));
    const ids = await tx([1, 2]);
    const results = await b.ingest(await docs([...ids, counter._id]));
    expect(results.find((r) => r.id === ids[0])).toMatchObject({ ok: false, code: 'DS_UNIQUE_VIOLATION' });
    expect(await b.storage.get(ids[0])).toBeNull(); // nothing of the refused member is stored
    expect((await b.findDocuments('Item')).map((d) => d.n).sort()).toEqual([1, 2]);
    expect(await b.getDocument(ids[0])).toBeNull();
    expect(await b.getDocument(counter._id)).toMatchObject({ value: 1 });
    const listed = [expect.objectContaining({ missing: [{ id: ids[0], code: 'DS_UNIQUE_VIOLATION', reason: expect.any(String) }] })];
    expect(api(b).incomplete()).toEqual(listed);
    expect(events).toEqual(listed);
    await b.close();
    expect(api(await reopen(name)).incomplete()).toEqual(listed);
  });

  it('documents stamped as the first version did ({ id, size }) still show whole; a stuck one can be released', async () => {
    const { counter, docs, tx } = await source();
    const { b } = await peer(await docs());
    const ids = await tx([1, 2, 3]);
    const old = (await docs(ids)).map((d) => ({ ...d, '~tx': { id: (d['~tx'] as { id: string }).id, size: 4 } }));
    await b.ingest(old.slice(0, 2));
    expect(await b.findDocuments('Item')).toEqual([]);
    await b.ingest(old.slice(2));
    expect(await b.findDocuments('Item')).toEqual([]); // the counter's revision is still missing
    const [stuck] = api(b).pending();
    expect(await api(b).release(stuck.id)).toBe(true);
    expect(await b.findDocuments('Item')).toHaveLength(3);
    expect(api(b).incomplete()).toEqual([expect.objectContaining({ id: stuck.id, missing: [expect.objectContaining({ code: 'DS_TX_RELEASED' })] })]);
    expect(await b.getDocument(counter._id)).toMatchObject({ value: 0 });
  });

  it('reads the pending list the first version kept (id → size) after an upgrade', async () => {
    const { counter, docs, tx } = await source();
    const { b, name } = await peer(await docs());
    const ids = await tx([1, 2]);
    const members = await docs([...ids, counter._id]);
    await b.ingest(members.slice(0, 1));
    const [waiting] = api(b).pending();
    const stored = (await b.storage.get<{ _id: string; _rev: string }>('_local/~tx/arrivals'))!;
    await b.storage.put({ _id: stored._id, _rev: stored._rev, pending: { [waiting.id]: 3 } });
    await b.close();
    const again = await reopen(name);
    expect(api(again).pending()).toEqual([expect.objectContaining({ id: waiting.id, size: 3, arrived: 1 })]);
    expect(await again.findDocuments('Item')).toEqual([]);
    await again.ingest(members.slice(1));
    expect(await again.findDocuments('Item')).toHaveLength(2);
  });
});
