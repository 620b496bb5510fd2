import { describe, expect, it, vi } from 'vitest';
import { Class, createStack, type ChangeEvent, type ClientStack } from '../../index.js';
import { kernelStack, rawDb, track } from '../helpers/stack.js';

const listen = (stack: ClientStack) => {
  const heard: ChangeEvent[] = [];
  const stop = stack.changes.subscribe((change) => heard.push(change));
  return { heard, stop };
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
/** Waits (up to 5 s) until the listener heard the store's last sequence. */
async function caughtUp(stack: ClientStack, heard: ChangeEvent[]): Promise<void> {
  const target = Number((await stack.storage.info()).updateSeq);
  for (let waited = 0; waited < 5000 && Number(heard.at(-1)?.seq ?? 0) < target; waited += 20) await new Promise((r) => setTimeout(r, 20));
}

describe('the change feed and large writes of the stack itself', () => {
  it('announces each document of a large write once, in sequence, without PouchDB reading them back', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Tag', 'class', '', { label: { type: 'string', primaryKey: true } });
    const { heard } = listen(stack);
    await stack.listClasses(); // the class-name index reads Class.create's put now, not during the write below
    await settle();
    const reads = vi.spyOn(rawDb(stack), 'changes');
    const made = await stack.createDocs(Array.from({ length: 120 }, (_, i) => ({ '~class': 'Tag', label: `t${i}` })));
    await settle();
    expect(heard.map((c) => c.id).sort()).toEqual(made.map((d) => d._id).sort());
    expect(heard.map((c) => c.rev)).toEqual(expect.arrayContaining(made.map((d) => d._rev)));
    const seqs = heard.map((c) => Number(c.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs.at(-1)).toBe(Number((await stack.storage.info()).updateSeq));
    // the feed resumed after the write: one catch-up call from the write's last sequence, which reads nothing
    for (const [options] of reads.mock.calls) expect(Number((options as { since?: unknown }).since)).toBeGreaterThanOrEqual(seqs.at(-1)!);
    // small writes and later writes are heard as before
    const one = await stack.createDoc({ '~class': 'Tag', label: 'single' });
    await settle();
    expect(heard.at(-1)).toMatchObject({ id: one._id, rev: one._rev });
  });

  it('loses nothing another writer of the store did: its changes are heard, and a listener on it hears this stack', async () => {
    const stack = await kernelStack();
    const other = track(await createStack({ name: stack.name, adapter: 'memory', plugins: [] }));
    await Class.create(stack, 'Tag', 'class', '', { label: { type: 'string' } });
    const here = listen(stack);
    const there = listen(other);
    await settle();
    const mine = await stack.createDocs(Array.from({ length: 80 }, (_, i) => ({ '~class': 'Tag', label: `a${i}` })));
    const theirs = await other.createDocs(Array.from({ length: 70 }, (_, i) => ({ '~class': 'Tag', label: `b${i}` })));
    await caughtUp(stack, here.heard);
    await caughtUp(other, there.heard);
    const all = [...mine, ...theirs].map((d) => d._id).sort();
    expect([...new Set(here.heard.map((c) => c.id))].sort()).toEqual(all);
    expect([...new Set(there.heard.map((c) => c.id))].sort()).toEqual(all);
    expect(here.heard).toHaveLength(150);
  });
});
