/**
 * The class counts kept in memory (engine/indexes/class-counts.ts): a write carries its class's
 * counter document only when the counter does not list this writer as dirty yet; the count is
 * exact in this process all along, persisted by a flush (a timer, the stack's close) that adds
 * this process's changes to what another process stored meanwhile; a counter listing a writer
 * that is gone is counted again.
 */
import { describe, expect, it, vi } from 'vitest';
import { Class, createStack, type ClientStack } from '../../index.js';
import { FLUSH_AFTER_MS, type CountDoc } from '../../engine/indexes/class-counts.js';
import { kernelStack, rawDb, refusal, tempDir, track, uniqueName } from '../helpers/stack.js';

const COUNTER = '_local/~count/Tag';
const tagClass = (stack: ClientStack) => Class.create(stack, 'Tag', 'class', 'a tag', { label: { type: 'string', primaryKey: true } });
const stored = async (stack: ClientStack) => (await rawDb(stack).get(COUNTER)) as unknown as CountDoc;
const tag = (label: string) => ({ '~class': 'Tag', label });

/** The counter documents the spied storage calls that stored documents carried (a flush's own call is not counted). */
function countersCarried(bulk: { mock: { calls: unknown[][] } }): number {
  const writes = bulk.mock.calls.map(([docs]) => docs as { _id: string }[]).filter((docs) => docs.some((d) => !d._id.startsWith('_local/')));
  return writes.reduce((n, docs) => n + docs.filter((d) => d._id === COUNTER).length, 0);
}

describe('class counts in memory', () => {
  it('serial writes carry no counter document but the first of a flush period; the count is exact all along', async () => {
    const stack = await kernelStack();
    await tagClass(stack);
    await stack.createDoc(tag('first'));
    const bulk = vi.spyOn(rawDb(stack), 'bulkDocs');
    const started = Date.now();
    const made = [];
    for (let i = 0; i < 40; i++) made.push(await stack.createDoc(tag(`t${i}`)));
    for (const doc of made.slice(0, 10)) await stack.deleteDocument(doc._id);
    const periods = Math.floor((Date.now() - started) / FLUSH_AFTER_MS);
    // a flush (its own call) and the next write's mark per period passed; 50 writes carried at most that
    const carried = countersCarried(bulk);
    expect(carried).toBeLessThanOrEqual(1 + 2 * periods);
    expect(carried).toBeLessThan(10);
    bulk.mockRestore();
    expect(await stack.countDocuments('Tag')).toBe(31);
    // the stored counter lags, listing this writer; the flush timer catches it up and takes the mark off
    expect((await stored(stack)).dirty).toHaveLength(1);
    await vi.waitFor(async () => expect(await stored(stack)).toMatchObject({ count: 31 }), { timeout: FLUSH_AFTER_MS * 10, interval: 50 });
    expect((await stored(stack)).dirty).toBeUndefined();
    expect(await stack.countDocuments('Tag')).toBe(31);
  });

  it('close persists the counts: a reopen reads them without counting', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('count-close');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    await tagClass(first);
    const made = await first.createDocs(Array.from({ length: 600 }, (_, i) => tag(`b${i}`))); // three storage calls
    for (const doc of made.slice(0, 3)) await first.deleteDocument(doc._id);
    await first.purgeDocuments([made[0]._id, made[3]._id]);
    await first.close();
    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] }));
    const counter = await stored(second);
    expect(counter.count).toBe(596);
    expect(counter.dirty).toBeUndefined();
    const scans = vi.spyOn(rawDb(second), 'allDocs');
    expect(await second.countDocuments('Tag')).toBe(596);
    expect(scans).not.toHaveBeenCalled();
  });

  it('an undone write takes its changes back: a batch over two storage calls whose second fails', async () => {
    const stack = await kernelStack();
    await tagClass(stack);
    await stack.createDoc(tag('taken'));
    // flushed: the batch's first call carries the counter (its mark and the first 250), which the undo must take back
    await vi.waitFor(async () => expect((await stored(stack)).dirty).toBeUndefined(), { timeout: FLUSH_AFTER_MS * 10, interval: 50 });
    // the natural id of the 300th is taken: storage refuses it in the second call, the first is undone
    const batch = Array.from({ length: 299 }, (_, i) => tag(`u${i}`));
    const bulk = vi.spyOn(rawDb(stack), 'bulkDocs');
    expect((await refusal(stack.createDocs([...batch, tag('taken')]))).code).toBe('DS_UNIQUE_VIOLATION');
    expect(bulk.mock.calls.length).toBeGreaterThanOrEqual(3); // two calls, then the undo's
    expect(countersCarried(bulk)).toBe(1);
    bulk.mockRestore();
    expect(await stack.countDocuments('Tag')).toBe(1);
    await stack.createDocs(batch);
    expect(await stack.countDocuments('Tag')).toBe(300);
    await vi.waitFor(async () => expect(await stored(stack)).toMatchObject({ count: 300 }), { timeout: FLUSH_AFTER_MS * 10, interval: 50 });
  });

  it('adds its changes to what another process stored meanwhile (deltas, not absolutes)', async () => {
    const stack = await kernelStack();
    await tagClass(stack);
    await stack.createDocs(Array.from({ length: 5 }, (_, i) => tag(`a${i}`)));
    await stack.createDoc(tag('mine'));
    // another process (a second tab) flushes its own +3 over this process's marked counter
    const db = rawDb(stack);
    const theirs = await stored(stack);
    await db.put({ ...theirs, count: theirs.count + 3 } as never);
    // this process answers what is stored plus its own changes not persisted
    expect(await stack.countDocuments('Tag')).toBe(6 + 3);
    await stack.createDoc(tag('mine too'));
    expect(await stack.countDocuments('Tag')).toBe(7 + 3);
    await vi.waitFor(async () => expect(await stored(stack)).toMatchObject({ count: 10 }), { timeout: FLUSH_AFTER_MS * 10, interval: 50 });
    expect((await stored(stack)).dirty).toBeUndefined();
  });

  it('does not trust a counter listing a writer that is gone: counts the class again', async () => {
    const stack = await kernelStack();
    await tagClass(stack);
    await stack.createDocs(Array.from({ length: 7 }, (_, i) => tag(`g${i}`)));
    await stack.close();
    const again = await kernelStack({ name: stack.name });
    const db = rawDb(again);
    // a process that died with changes not persisted: its id listed, its count behind
    const counter = await stored(again);
    await db.put({ ...counter, count: 2, dirty: ['a-writer-that-died'] } as never);
    expect(await again.countDocuments('Tag')).toBe(7);
    expect(await stored(again)).toMatchObject({ count: 7 });
    expect((await stored(again)).dirty).toBeUndefined();
    // also when this process already holds the class's count (another process's counter read on a conflict)
    const now = await stored(again);
    await db.put({ ...now, count: 50, dirty: ['another-dead-writer'] } as never);
    await again.createDoc(tag('g-after'));
    expect(await again.countDocuments('Tag')).toBe(8);
  });

  it('counts replicated documents (stack.ingest) in memory and persists them', async () => {
    const peer = track(await createStack({ name: uniqueName('count-peer'), adapter: 'memory', plugins: [] }));
    const here = await kernelStack();
    for (const stack of [peer, here]) await tagClass(stack);
    const docs = await peer.createDocs(Array.from({ length: 6 }, (_, i) => tag(`p${i}`)));
    await peer.deleteDocument(docs[0]._id);
    const revisions = await Promise.all(docs.map((d) => peer.storage.replication.get(d._id, { revs: true })));
    const bulk = vi.spyOn(rawDb(here), 'bulkDocs');
    await here.ingest(revisions.slice(0, 3));
    await here.ingest(revisions.slice(3));
    expect(countersCarried(bulk)).toBe(1); // the first ingest marked the counter; the second carried none
    bulk.mockRestore();
    expect(await here.countDocuments('Tag')).toBe(5);
    await vi.waitFor(async () => expect(await stored(here)).toMatchObject({ count: 5 }), { timeout: FLUSH_AFTER_MS * 10, interval: 50 });
  });
});
