import { describe, expect, it, vi } from 'vitest';
import { Class, createStack, type ClientStack } from '../../index.js';
import { kernelStack, rawDb, refusal, tempDir, track, uniqueName } from '../helpers/stack.js';

const tagClass = (stack: ClientStack) => Class.create(stack, 'Tag', 'class', 'a tag', { label: { type: 'string', primaryKey: true }, group: { type: 'string' } });

/** Counts with every document read spied on: a whole-class count must read none (only its `_local` counter). */
async function countWithoutReads(stack: ClientStack, className: string): Promise<number> {
  const db = rawDb(stack);
  const scans = vi.spyOn(db, 'allDocs');
  const gets = vi.spyOn(db, 'get');
  try {
    const n = await stack.countDocuments(className);
    expect(scans).not.toHaveBeenCalled();
    // the class document itself may be read (the class cache); never a document of the class
    for (const [id] of gets.mock.calls) expect(String(id)).not.toMatch(new RegExp(`^${className}-`));
    return n;
  } finally {
    scans.mockRestore();
    gets.mockRestore();
  }
}

describe('countDocuments / Class.count', () => {
  it('is exact after creates, updates, soft deletes and purges, without reading documents', async () => {
    const stack = await kernelStack();
    const tags = await tagClass(stack);
    expect(await stack.countDocuments('Tag')).toBe(0);
    const made = await stack.createDocs(Array.from({ length: 30 }, (_, i) => ({ '~class': 'Tag', label: `t${i}`, group: i % 3 === 0 ? 'a' : 'b' })));
    await stack.createDoc({ '~class': 'Tag', label: 'one more' });
    expect(await countWithoutReads(stack, 'Tag')).toBe(31);
    await stack.updateDoc(made[0]._id, { group: 'c' });
    expect(await tags.count()).toBe(31);
    await stack.deleteDocument(made[1]._id);
    await stack.deleteDocument(made[2]._id);
    expect(await countWithoutReads(stack, 'Tag')).toBe(29);
    // a purge of a deleted document changes nothing, of an active one takes one off
    await stack.purgeDocuments([made[1]._id, made[3]._id]);
    expect(await countWithoutReads(stack, 'Tag')).toBe(28);
    expect(await tags.count()).toBe((await stack.findDocuments('Tag')).length);
  });

  it('is unchanged by a refused write: a duplicate key, a batch with one invalid document', async () => {
    const stack = await kernelStack();
    await tagClass(stack);
    await stack.createDoc({ '~class': 'Tag', label: 'red' });
    expect((await refusal(stack.createDoc({ '~class': 'Tag', label: 'red' }))).code).toBe('DS_UNIQUE_VIOLATION');
    expect((await refusal(stack.createDocs([{ '~class': 'Tag', label: 'x' }, { '~class': 'Tag', label: 'x' }]))).code).toBe('DS_UNIQUE_VIOLATION');
    expect(await stack.countDocuments('Tag')).toBe(1);
  });

  it('counts a selector: a whole primary key from the key index, any other by matching', async () => {
    const stack = await kernelStack();
    const tags = await tagClass(stack);
    const made = await stack.createDocs(Array.from({ length: 12 }, (_, i) => ({ '~class': 'Tag', label: `t${i}`, group: i < 4 ? 'a' : 'b' })));
    await stack.deleteDocument(made[0]._id);
    const scans = vi.spyOn(rawDb(stack), 'allDocs');
    expect(await tags.count({ label: 't5' })).toBe(1);
    expect(await tags.count({ label: { $eq: 't0' } })).toBe(0); // deleted: its key is free
    expect(await tags.count({ label: 'none' })).toBe(0);
    expect(scans).not.toHaveBeenCalled();
    scans.mockRestore();
    expect(await tags.count({ group: 'a' })).toBe(3);
    expect(await tags.count({ group: 'b', label: { $in: ['t5', 't6', 't1'] } })).toBe(2);
    expect((await refusal(stack.countDocuments('Tag', { group: { $nope: 1 } }))).code).toBe('DS_QUERY_INVALID');
    expect((await refusal(stack.countDocuments('Nope'))).code).toBe('DS_CLASS_NOT_FOUND');
  });

  it('counts replicated documents (stack.ingest): new ones, updates, soft deletes, a conflicting branch, tombstones', async () => {
    const peer = track(await createStack({ name: uniqueName('count-peer'), adapter: 'memory', plugins: [] }));
    const here = await kernelStack();
    for (const stack of [peer, here]) await tagClass(stack);
    const revision = (id: string) => peer.storage.replication.get(id, { revs: true });
    const docs = await peer.createDocs(Array.from({ length: 5 }, (_, i) => ({ '~class': 'Tag', label: `p${i}` })));
    await here.ingest(await Promise.all(docs.map((d) => revision(d._id))));
    expect(await countWithoutReads(here, 'Tag')).toBe(5);
    // the same revisions again change nothing
    await here.ingest(await Promise.all(docs.map((d) => revision(d._id))));
    expect(await here.countDocuments('Tag')).toBe(5);
    await peer.deleteDocument(docs[0]._id);
    await peer.updateDoc(docs[1]._id, { group: 'g' });
    await here.ingest([await revision(docs[0]._id), await revision(docs[1]._id)]);
    expect(await countWithoutReads(here, 'Tag')).toBe(4);
    // a branch beside the winner (both sides edited docs[2]): the winner decides, here an inactive one
    const local = await here.updateDoc(docs[2]._id, { group: 'here' });
    await peer.updateDoc(docs[2]._id, { group: 'x' });
    await peer.deleteDocument(docs[2]._id);
    await here.ingest([await revision(docs[2]._id)]);
    const winner = await here.storage.get(docs[2]._id);
    expect(winner?._rev).not.toBe(local._rev);
    expect(await here.countDocuments('Tag')).toBe((await here.findDocuments('Tag')).length);
    expect(await here.countDocuments('Tag')).toBe(3);
    // a tombstone (a purge on the peer)
    await peer.purgeDocuments([docs[3]._id]);
    const [tombstone] = await peer.storage.replication.openRevs(docs[3]._id, 'all', { revs: true });
    await here.ingest(['ok' in tombstone ? tombstone.ok : tombstone]);
    expect(await here.countDocuments('Tag')).toBe(2);
    expect(await here.countDocuments('Tag')).toBe((await here.findDocuments('Tag')).length);
  });

  it('keeps the count across a reopen (leveldb), and builds a missing counter once by counting', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('count-durable');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    await tagClass(first);
    const made = await first.createDocs(Array.from({ length: 40 }, (_, i) => ({ '~class': 'Tag', label: `d${i}` })));
    await first.deleteDocument(made[0]._id);
    await first.close();
    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] }));
    expect(await countWithoutReads(second, 'Tag')).toBe(39);
    // a store written before counters existed: the counter is built by one scan, then kept
    const db = rawDb(second);
    const counter = await db.get('_local/~count/Tag');
    await db.remove(counter);
    expect(await second.countDocuments('Tag')).toBe(39);
    await second.createDoc({ '~class': 'Tag', label: 'after' });
    expect(await countWithoutReads(second, 'Tag')).toBe(40);
  });

  it('writes a document, its key entries and its counter in one storage call (a revive: after one refusal)', async () => {
    const stack = await kernelStack();
    await tagClass(stack);
    const doc = await stack.createDoc({ '~class': 'Tag', label: 'first' });
    const bulk = vi.spyOn(rawDb(stack), 'bulkDocs');
    const put = vi.spyOn(rawDb(stack), 'put');
    await stack.createDoc({ '~class': 'Tag', label: 'second' });
    await stack.updateDoc(doc._id, { group: 'g' }); // key attributes never change (DS_PRIMARY_KEY_IMMUTABLE)
    await stack.deleteDocument(doc._id); // releases its key
    expect(bulk).toHaveBeenCalledTimes(3);
    // a create of the soft-deleted natural id: refused by storage (409), read, then stored as its next revision
    const revived = await stack.createDoc({ '~class': 'Tag', label: 'first' });
    expect(revived._id).toBe(doc._id);
    expect(put).not.toHaveBeenCalled();
    // a taken natural id is refused by storage itself (no read before the create): DS_UNIQUE_VIOLATION, nothing left stored
    const before = await stack.countDocuments('Tag');
    expect((await refusal(stack.createDoc({ '~class': 'Tag', label: 'second' }))).code).toBe('DS_UNIQUE_VIOLATION');
    expect(await stack.countDocuments('Tag')).toBe(before);
  });
});
