import { describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../index.js';
import { countCalls, expectRefused, kernelStack } from '../helpers/stack.js';

async function fourClasses(stack: ClientStack): Promise<string[]> {
  const names = ['Alpha', 'Beta', 'Gamma', 'Delta'];
  for (const name of names) await Class.create(stack, name, 'class', '', { code: { type: 'string', primaryKey: true }, n: { type: 'integer' } });
  return names;
}

describe('group commit: concurrent writes share storage calls, each keeps its own outcome', () => {
  it('writes that meet at the lock are stored in one call; a serial writer still stores at once', async () => {
    const stack = await kernelStack();
    const names = await fourClasses(stack);
    const seen = countCalls(stack);
    // one write per class (each class has its own counter document, so none of them meet on an id)
    const made = await Promise.all(names.map((name, i) => stack.createDoc({ '~class': name, code: `c${i}`, n: i })));
    expect(made.map((d) => d._rev?.startsWith('1-'))).toEqual([true, true, true, true]);
    // the first write took the free lock alone; the three that arrived meanwhile shared the next call
    expect(seen.calls).toBe(2);
    for (const name of names) expect(await stack.countDocuments(name)).toBe(1);
    for (const [i, name] of names.entries()) expect((await stack.getDocument(made[i]._id))?.['~class']).toBe(name);

    seen.calls = 0;
    await stack.createDoc({ '~class': 'Alpha', code: 'serial', n: 9 });
    expect(seen.calls).toBe(1);
  });

  it('concurrent creates of one class share calls too (its counter is kept in memory, not written per call); the count is exact', async () => {
    const stack = await kernelStack();
    await fourClasses(stack);
    const seen = countCalls(stack);
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => stack.createDoc({ '~class': 'Alpha', code: `k${i}`, n: i })));
    expect(new Set(made.map((d) => d._id)).size).toBe(40);
    // the first write alone, then the 39 that queued meanwhile together (a counter flush may add one)
    expect(seen.calls).toBeLessThanOrEqual(3);
    expect(Math.max(...seen.docs)).toBeGreaterThanOrEqual(39);
    expect(await stack.countDocuments('Alpha')).toBe(40);
  });

  it('a taken key refuses its own write only; the others of the call are stored', async () => {
    const stack = await kernelStack();
    const names = await fourClasses(stack);
    await stack.createDoc({ '~class': 'Beta', code: 'taken', n: 0 });
    const outcomes = await Promise.allSettled([
      stack.createDoc({ '~class': 'Alpha', code: 'a', n: 1 }),
      stack.createDoc({ '~class': 'Beta', code: 'taken', n: 2 }),
      stack.createDoc({ '~class': 'Gamma', code: 'g', n: 3 }),
      stack.createDoc({ '~class': 'Delta', code: 'd', n: 4 }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    await expectRefused(Promise.reject((outcomes[1] as PromiseRejectedResult).reason), 'DS_UNIQUE_VIOLATION');
    expect(await Promise.all(names.map((n) => stack.countDocuments(n)))).toEqual([1, 1, 1, 1]);
    expect((await stack.findDocuments('Beta')).map((d) => d.n)).toEqual([0]);
  });

  it('two concurrent creates of one key: one stored, one DS_UNIQUE_VIOLATION, the count exact', async () => {
    const stack = await kernelStack();
    await fourClasses(stack);
    const outcomes = await Promise.allSettled([
      stack.createDoc({ '~class': 'Alpha', code: 'first', n: 0 }),
      stack.createDoc({ '~class': 'Gamma', code: 'x', n: 1 }),
      stack.createDoc({ '~class': 'Alpha', code: 'same', n: 2 }),
      stack.createDoc({ '~class': 'Alpha', code: 'same', n: 3 }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    await expectRefused(Promise.reject((outcomes[3] as PromiseRejectedResult).reason), 'DS_UNIQUE_VIOLATION');
    expect(await stack.countDocuments('Alpha')).toBe(2);
    expect((await stack.findDocuments('Alpha', { code: 'same' })).map((d) => d.n)).toEqual([2]);
  });

  it('two concurrent updates of one document: one stored, the other DS_DOC_CONFLICT; nothing else lost', async () => {
    const stack = await kernelStack();
    await fourClasses(stack);
    const doc = await stack.createDoc({ '~class': 'Alpha', code: 'u', n: 0 });
    const outcomes = await Promise.allSettled([
      stack.createDoc({ '~class': 'Beta', code: 'b', n: 1 }),
      stack.updateDoc(doc._id, { n: 1 }),
      stack.updateDoc(doc._id, { n: 2 }),
      stack.createDoc({ '~class': 'Gamma', code: 'g', n: 1 }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    await expectRefused(Promise.reject((outcomes[2] as PromiseRejectedResult).reason), 'DS_DOC_CONFLICT');
    expect((await stack.getDocument(doc._id))?.n).toBe(1);
    expect(await stack.countDocuments('Alpha')).toBe(1);
  });

  it('a soft-deleted key re-created among concurrent writes is revived', async () => {
    const stack = await kernelStack();
    await fourClasses(stack);
    const old = await stack.createDoc({ '~class': 'Delta', code: 'again', n: 0 });
    await stack.deleteDocument(old._id);
    expect(await stack.countDocuments('Delta')).toBe(0);
    const [, revived] = await Promise.all([
      stack.createDoc({ '~class': 'Alpha', code: 'a', n: 0 }),
      stack.createDoc({ '~class': 'Delta', code: 'again', n: 5 }),
      stack.createDoc({ '~class': 'Beta', code: 'b', n: 0 }),
    ]);
    expect(revived._id).toBe(old._id);
    expect(revived._rev?.startsWith('3-')).toBe(true);
    expect(await stack.countDocuments('Delta')).toBe(1);
  });
});
