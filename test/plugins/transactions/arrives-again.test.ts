/**
 * A transaction already shown on a peer stays shown when one of its listed members' own
 * revision arrives after the member was accounted for by generation: a conflicting sibling of
 * the same generation that won the first race, or a later revision the member was overtaken by
 * (a pull replayed after the node was killed). Nothing remembers a resolved transaction, so such
 * an arrival must not start it again: its other members arrived before and never come again.
 * docs/transactions.md#across-replication.
 */
import { describe, expect, it } from 'vitest';
import { Class, getApi, type ClientStack, type Doc } from '../../../index.js';
import { transactionsPlugin } from '../../../plugins/transactions/index.js';
import type { BrowserStack } from '../../../plugins.config.js';
import { memoryStack } from '../../helpers/stack.js';

const api = (stack: ClientStack) => getApi(stack, transactionsPlugin)!;

async function stackWith(docs: Doc[]): Promise<BrowserStack> {
  const s = await memoryStack();
  await s.ingest(docs);
  return s;
}

/** Documents at their winning revision with their history (`_revisions`), as a replicator sends them. */
async function latest(stack: ClientStack, ids?: string[]): Promise<Doc[]> {
  const rows = (await stack.storage.replication.allDocs(ids ? { keys: ids } : {})).rows;
  const wanted = rows.flatMap((r) => ('value' in r && r.value && !r.id.startsWith('_') ? [r.id] : []));
  return Promise.all(wanted.map(async (id) => (await stack.storage.replication.get(id, { revs: true })) as unknown as Doc));
}

/** Two devices holding the same Counter; each transaction bumps it and creates one Item. */
async function devices() {
  const a = await memoryStack();
  await Class.create(a, 'Counter', 'class', '', { value: { type: 'integer' } });
  await Class.create(a, 'Item', 'class', '', { n: { type: 'integer', primaryKey: true }, label: { type: 'string' } });
  const counter = await a.createDoc({ '~class': 'Counter', value: 0 });
  const a2 = await stackWith(await latest(a));
  const b = await stackWith(await latest(a));
  const bump = (on: BrowserStack, n: number) =>
    on.transaction(async (tx) => {
      const c = (await tx.getDocument(counter._id))!;
      await tx.updateDoc(counter._id, { value: (c.value as number) + 1 });
      return (await tx.createDoc({ '~class': 'Item', n }))._id;
    });
  return { a, a2, b, counter, bump };
}

describe('a member of a transaction already shown arrives again', () => {
  it('as a conflicting sibling of the revision it was counted by: the transaction stays shown', async () => {
    const { a, a2, b, counter, bump } = await devices();
    const mine = await bump(a, 1);
    const theirs = await bump(a2, 2);
    // the other device's transaction first, whole: the counter is at generation 2 on its branch
    await b.ingest(await latest(a2, [theirs, counter._id]));
    // this transaction's item: its counter (listed at generation 2) counts by that sibling, so it shows at once
    await b.ingest(await latest(a, [mine]));
    expect(api(b).pending()).toEqual([]);
    expect(await b.getDocument(mine)).toMatchObject({ n: 1 });
    // then its own counter revision arrives, a conflict of the same generation (winner either way)
    await b.ingest(await latest(a, [counter._id]));
    const stored = (await b.storage.replication.get(counter._id, { conflicts: true })) as { _conflicts?: string[] };
    expect(stored._conflicts).toHaveLength(1);
    expect(api(b).pending()).toEqual([]);
    expect((await b.findDocuments('Item')).map((d) => d.n).sort()).toEqual([1, 2]);
    expect(await b.getDocument(counter._id)).toMatchObject({ value: 1 });
  });

  it('overtaken by a later revision, then replayed: the transaction stays shown', async () => {
    const { a, b, counter, bump } = await devices();
    const item = await bump(a, 1);
    const sent = await latest(a, [item, counter._id]);
    await b.ingest(sent);
    expect(api(b).pending()).toEqual([]);
    await a.updateDoc(counter._id, { value: 7 }); // a plain update of a listed member: no stamp
    await b.ingest(await latest(a, [counter._id]));
    // a pull replayed from an older checkpoint sends the counter's transaction revision again
    const [counterRev] = sent.filter((d) => d._id === counter._id);
    const results = await b.ingest([counterRev]);
    expect(results).toEqual([expect.objectContaining({ ok: true })]);
    expect(api(b).pending()).toEqual([]);
    expect(await b.getDocument(item)).toMatchObject({ n: 1 });
    expect(await b.getDocument(counter._id)).toMatchObject({ value: 7 });
  });

  it('a member that owes it arrives before any stamped revision of it (a pull ordered by latest change): counted when it starts', async () => {
    const { a, b, counter, bump } = await devices();
    const item = await bump(a, 1);
    await a.updateDoc(item, { label: 'five' }); // the item now owes the transaction (a key never changes: its label)
    // the counter changed later on the node (a conflict revision, say): the pull brings it last
    await b.ingest(await latest(a, [item]));
    expect(await b.getDocument(item)).toMatchObject({ label: 'five' }); // nothing here says it is part of anything pending
    await b.ingest(await latest(a, [counter._id]));
    expect(api(b).pending()).toEqual([]);
    expect(await b.getDocument(item)).toMatchObject({ label: 'five' });
    expect(await b.getDocument(counter._id)).toMatchObject({ value: 1 });
  });
});
