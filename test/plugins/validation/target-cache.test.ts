/**
 * Foreign-key targets kept in memory (plugins/validation/target-cache.ts): a serial writer reads
 * a target once, and what would make it invalid is seen — at once when this stack changes or
 * purges it, or when another writer does while the change feed runs; within VERIFY_AFTER_MS on
 * the stack's clock when another writer of the store does and nothing runs the feed.
 */
import { describe, expect, it, vi } from 'vitest';
import { Class, createStack, type ClientStack } from '../../../index.js';
import { VERIFY_AFTER_MS } from '../../../engine/class-cache.js';
import { browser } from '../../../plugins.config.js';
import { ManualClock } from '../../helpers/clock.js';
import { memoryStack, refusal, track, uniqueName } from '../../helpers/stack.js';

async function schema(stack: ClientStack) {
  await Class.create(stack, 'Category', 'class', '', { name: { type: 'string' } });
  await Class.create(stack, 'Item', 'class', '', { label: { type: 'string' }, category: { type: 'foreign_key', targetClass: 'Category' } });
}

describe('foreign-key targets kept in memory', () => {
  it('a serial writer reads a target once; a miss is read every time (it may arrive)', async () => {
    const stack = await memoryStack();
    await schema(stack);
    const tools = await stack.createDoc({ '~class': 'Category', name: 'tools' });
    const gets = vi.spyOn(stack.storage, 'get');
    for (let i = 0; i < 20; i++) await stack.createDoc({ '~class': 'Item', label: `item ${i}`, category: tools._id });
    expect(gets.mock.calls.filter(([id]) => id === tools._id)).toHaveLength(1);
    for (let i = 0; i < 2; i++) expect((await refusal(stack.createDoc({ '~class': 'Item', label: 'x', category: 'Category-missing' }))).code).toBe('DS_VALIDATION_FOREIGN_KEY');
    expect(gets.mock.calls.filter(([id]) => id === 'Category-missing')).toHaveLength(2);
  });

  it("this stack's own deactivation, deletion of a class's target or purge is seen by the next write", async () => {
    const stack = await memoryStack();
    await schema(stack);
    const [a, b] = await stack.createDocs([{ '~class': 'Category', name: 'a' }, { '~class': 'Category', name: 'b' }]);
    await stack.createDoc({ '~class': 'Item', label: 'warm a', category: a._id });
    await stack.createDoc({ '~class': 'Item', label: 'warm b', category: b._id });
    await stack.deleteDocument(a._id); // soft: inactive
    expect(await refusal(stack.createDoc({ '~class': 'Item', label: 'late', category: a._id }))).toMatchObject({ code: 'DS_VALIDATION_FOREIGN_KEY', message: expect.stringContaining('is inactive') });
    expect(await stack.purgeDocuments([b._id])).toBe(1);
    expect(await refusal(stack.createDoc({ '~class': 'Item', label: 'late', category: b._id }))).toMatchObject({ code: 'DS_VALIDATION_FOREIGN_KEY', message: expect.stringContaining('does not exist') });
  });

  it('another writer of the store: seen at once while the feed runs, else once VERIFY_AFTER_MS has passed on the clock', async () => {
    const name = uniqueName('fk-cache');
    const clock = new ManualClock();
    const mine = track(await createStack({ name, adapter: 'memory', plugins: browser, clock }));
    const theirs = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    await schema(mine);
    const [a, b] = await mine.createDocs([{ '~class': 'Category', name: 'a' }, { '~class': 'Category', name: 'b' }]);
    await mine.createDoc({ '~class': 'Item', label: 'warm', category: a._id });
    await theirs.deleteDocument(a._id);
    expect(mine.changes.running).toBe(false);
    clock.advance(VERIFY_AFTER_MS - 1);
    await mine.createDoc({ '~class': 'Item', label: 'within the delay', category: a._id }); // the cached answer, as for a class
    clock.advance(1);
    expect((await refusal(mine.createDoc({ '~class': 'Item', label: 'after it', category: a._id }))).code).toBe('DS_VALIDATION_FOREIGN_KEY');

    // a live class object runs the feed: another writer's change invalidates exactly
    const categories = await mine.getClass('Category');
    const heard: string[] = [];
    const listener = (e: { id: string }) => heard.push(e.id);
    categories.on('change', listener);
    await mine.createDoc({ '~class': 'Item', label: 'warm b', category: b._id });
    await theirs.deleteDocument(b._id);
    await vi.waitFor(() => expect(heard).toContain(b._id));
    expect((await refusal(mine.createDoc({ '~class': 'Item', label: 'b gone', category: b._id }))).code).toBe('DS_VALIDATION_FOREIGN_KEY');
    categories.off('change', listener);
  });
});
