/**
 * stack.live (issue #31): the first result at once, then one new result per tick in which a
 * change affected it — local writes, transactions, a peer's documents (ingest), conflict
 * resolutions, deletes, purges — applied in place where the selector allows (no findDocuments
 * call), read again where a window needs its next row. Every result equals what findDocuments
 * answers at that moment.
 */
import { describe, expect, it, vi } from 'vitest';
import { Class, type ClientStack, type Doc, type LiveQuery } from '../../index.js';
import { replicateIngest } from '../helpers/replicate.js';
import { kernelStack, memoryStack } from '../helpers/stack.js';

/** Every result the handle publishes, and a wait for the next one. */
function record(handle: LiveQuery) {
  const seen: Doc[][] = [];
  let wake: (() => void) | undefined;
  handle.subscribe((docs) => {
    seen.push(docs);
    wake?.();
  });
  const next = (count = seen.length + 1) =>
    new Promise<Doc[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no result #${count} within 2 s (had ${seen.length})`)), 2_000);
      const check = () => (seen.length >= count ? (clearTimeout(timer), resolve(seen[count - 1])) : undefined);
      wake = check;
      check();
    });
  return { seen, next };
}

/** A few ticks: long enough for a change to have reached a live query (it would have by then). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

async function withItems(stack: ClientStack, ns: number[]) {
  await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' }, tag: { type: 'string' } });
  return stack.createDocs(ns.map((n) => ({ '~class': 'Item', n, tag: n % 2 === 0 ? 'even' : 'odd' })));
}

const ns = (docs: Doc[] | undefined) => (docs ?? []).map((d) => d.n);

describe('stack.live', () => {
  it('answers the query now, then follows creates, updates and deletes in place, without reading the class again', async () => {
    const stack = await kernelStack();
    const docs = await withItems(stack, [1, 2, 3, 4]);
    const find = vi.spyOn(stack, 'findDocuments');
    const handle = stack.live('Item', { tag: 'even' });
    const { seen, next } = record(handle);
    expect(ns(await handle.ready).sort()).toEqual([2, 4]); // in _id order: random ids
    expect(handle.current).toEqual(await stack.findDocuments('Item', { tag: 'even' }));
    const reads = find.mock.calls.length;

    const six = await stack.createDoc({ '~class': 'Item', n: 6, tag: 'even' });
    expect(ns(await next(2)).sort()).toEqual([2, 4, 6]);
    await stack.updateDoc(docs[1]._id, { tag: 'odd' }); // n: 2 leaves the result
    expect(ns(await next(3)).sort()).toEqual([4, 6]);
    await stack.updateDoc(docs[0]._id, { tag: 'even' }); // n: 1 enters it
    expect(ns(await next(4)).sort()).toEqual([1, 4, 6]);
    await stack.deleteDocument(six._id);
    expect(ns(await next(5)).sort()).toEqual([1, 4]);
    await stack.createDoc({ '~class': 'Item', n: 7, tag: 'odd' }); // does not match: no new result
    await settle();
    expect(seen).toHaveLength(5);
    expect(find.mock.calls.length).toBe(reads); // no read of the class since the first
    expect(handle.current).toEqual(await stack.findDocuments('Item', { tag: 'even' }));
    handle.close();
  });

  it('gives many changes of one tick one new result, and a subscriber that comes late the current one at once', async () => {
    const stack = await kernelStack();
    await withItems(stack, [1]);
    const handle = await stack.getClass('Item').then((c) => c.live());
    await handle.ready;
    const { seen, next } = record(handle);
    expect(seen).toHaveLength(1); // the current result, at once
    await stack.createDocs([2, 3, 4, 5, 6].map((n) => ({ '~class': 'Item', n })));
    expect(ns(await next(2)).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    await settle();
    expect(seen).toHaveLength(2);
    handle.close();
  });

  it('keeps a limit window in _id order: a row before its end takes the last one\'s place, a row leaving it reads the next one', async () => {
    const stack = await kernelStack();
    await withItems(stack, []);
    const ids = ['Item-b', 'Item-d', 'Item-f', 'Item-h'];
    for (const [i, id] of ids.entries()) await stack.createDoc({ '~class': 'Item', n: i }, { id });
    const find = vi.spyOn(stack, 'findDocuments');
    const handle = stack.live('Item', undefined, { limit: 2, fields: ['n'] });
    const { next } = record(handle);
    expect(await handle.ready).toEqual([{ _id: 'Item-b', n: 0 }, { _id: 'Item-d', n: 1 }]);
    await stack.createDoc({ '~class': 'Item', n: 9 }, { id: 'Item-z' }); // past the window's end: nothing to tell
    await stack.createDoc({ '~class': 'Item', n: 10 }, { id: 'Item-a' });
    expect((await next(2)).map((d) => d._id)).toEqual(['Item-a', 'Item-b']);
    expect(find).toHaveBeenCalledTimes(1); // the first read only
    await stack.deleteDocument('Item-a');
    expect((await next(3)).map((d) => d._id)).toEqual(['Item-b', 'Item-d']); // the next row, read
    expect(find).toHaveBeenCalledTimes(2);
    expect(handle.current).toEqual(await stack.findDocuments('Item', undefined, { limit: 2, fields: ['n'] }));
    handle.close();
  });

  it('sorts by attributes (ties in _id order) and cuts skip/limit from every match it keeps', async () => {
    const stack = await kernelStack();
    await withItems(stack, [5, 3, 8, 1]);
    const handle = stack.live('Item', { n: { $gt: 1 } }, { sort: [{ n: 'desc' }], skip: 1, limit: 2 });
    const { next } = record(handle);
    expect(ns(await handle.ready)).toEqual([5, 3]);
    await stack.createDoc({ '~class': 'Item', n: 6 });
    expect(ns(await next(2))).toEqual([6, 5]);
    const [eight] = await stack.findDocuments('Item', { n: 8 });
    await stack.updateDoc(eight._id, { n: 0 }); // leaves the matches: 6 moves to the top, out of the window
    expect(ns(await next(3))).toEqual([5, 3]);
    handle.close();
  });

  it('follows a skip window by reading again, and refuses bad options and selectors with DS_QUERY_INVALID', async () => {
    const stack = await kernelStack();
    await withItems(stack, []);
    for (const id of ['Item-b', 'Item-d', 'Item-f']) await stack.createDoc({ '~class': 'Item', n: 1 }, { id });
    const handle = stack.live('Item', undefined, { skip: 1 });
    const { next } = record(handle);
    expect((await handle.ready).map((d) => d._id)).toEqual(['Item-d', 'Item-f']);
    await stack.createDoc({ '~class': 'Item', n: 1 }, { id: 'Item-a' });
    expect((await next(2)).map((d) => d._id)).toEqual(['Item-b', 'Item-d', 'Item-f']);
    handle.close();
    for (const [options, path] of [[{ limit: -1 }, 'limit'], [{ sort: ['n', 3] }, 'sort'], [{ sort: [{ n: 'up' }] }, 'sort']] as const) {
      expect(() => stack.live('Item', undefined, options as never)).toThrow(expect.objectContaining({ code: 'DS_QUERY_INVALID', path }));
    }
    expect(() => stack.live('Item', 'open' as never)).toThrow(expect.objectContaining({ code: 'DS_QUERY_INVALID' }));
    await expect(stack.live('Nothing').ready).rejects.toMatchObject({ code: 'DS_CLASS_NOT_FOUND' });
  });

  it('a query opened before its class exists reports the failure, then reads once the class\'s documents arrive', async () => {
    const stack = await kernelStack();
    const handle = stack.live('Later', { n: { $gt: 0 } });
    const errors: unknown[] = [];
    handle.subscribe(() => undefined, (error) => errors.push(error));
    await expect(handle.ready).rejects.toMatchObject({ code: 'DS_CLASS_NOT_FOUND' });
    expect(handle.error).toMatchObject({ code: 'DS_CLASS_NOT_FOUND' });
    await Class.create(stack, 'Later', 'class', '', { n: { type: 'integer' } });
    await stack.createDocs([{ '~class': 'Later', n: 1 }, { '~class': 'Later', n: 0 }]);
    await vi.waitFor(() => expect(ns(handle.current)).toEqual([1]));
    expect(handle.error).toBeUndefined();
    expect(errors).toHaveLength(1);
    handle.close();
  });

  it('stops all work on close (no listener left on the stack), and closing the stack closes its live queries', async () => {
    const stack = await kernelStack();
    await withItems(stack, [1]);
    const before = stack.listenerCount('change');
    const handle = stack.live('Item');
    const { seen } = record(handle);
    await handle.ready;
    expect(stack.listenerCount('change')).toBe(before + 1);
    handle.close();
    expect(stack.listenerCount('change')).toBe(before);
    await stack.createDoc({ '~class': 'Item', n: 2 });
    await settle();
    expect(seen).toHaveLength(1);
    const other = stack.live('Item');
    await other.ready;
    await stack.close();
    expect(other.closed).toBe(true);
    expect(() => stack.live('Item')).toThrow(expect.objectContaining({ code: 'DS_STACK_CLOSED' }));
  });

  it('follows a peer\'s documents (ingest), transactions and a conflict resolution, and drops purged documents', async () => {
    const a = await memoryStack();
    const b = await memoryStack();
    await Class.create(a, 'Note', 'class', '', { title: { type: 'string' } });
    const note = await a.createDoc({ '~class': 'Note', title: 'first' });
    await replicateIngest(a, b);
    const handle = b.live('Note', undefined, { fields: ['title'] });
    const { next } = record(handle);
    expect(await handle.ready).toEqual([{ _id: note._id, title: 'first' }]);

    await a.createDoc({ '~class': 'Note', title: 'second' });
    await replicateIngest(a, b);
    expect((await next(2)).map((d) => d.title).sort()).toEqual(['first', 'second']);

    // both edit the first note offline: b's result follows the winner, then the resolution
    await a.updateDoc(note._id, { title: 'from a' });
    await b.updateDoc(note._id, { title: 'from b' });
    await next(3);
    await replicateIngest(a, b); // a conflict: b's result shows the winning revision, as findDocuments does
    const winner = (await b.getDocument(note._id))!.title;
    await vi.waitFor(() => expect(handle.current!.map((d) => d.title).sort()).toEqual([winner, 'second'].sort()));
    expect(handle.current).toEqual(await b.findDocuments('Note', undefined, { fields: ['title'] }));
    await b.resolveConflict(note._id, { title: 'merged' });
    await vi.waitFor(() => expect(handle.current!.map((d) => d.title).sort()).toEqual(['merged', 'second']));

    await b.transaction(async (tx) => {
      await tx.createDoc({ '~class': 'Note', title: 'in tx' });
      await tx.updateDoc(note._id, { title: 'merged, then tx' });
    });
    await vi.waitFor(() => expect(handle.current!.map((d) => d.title).sort()).toEqual(['in tx', 'merged, then tx', 'second']));

    await b.purgeDocuments([note._id]);
    await vi.waitFor(() => expect(handle.current!.map((d) => d.title).sort()).toEqual(['in tx', 'second']));
    expect(handle.current).toEqual(await b.findDocuments('Note', undefined, { fields: ['title'] }));
  });
});
