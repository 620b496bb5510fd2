import { describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../index.js';
import { writeLockFor } from '../../storage/write-lock.js';
import { countCalls, expectRefused, kernelStack, rawDb } from '../helpers/stack.js';

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

  it('a write the group stored is answered once the lock is free: the serial writes after it take the lock at once, not the group', async () => {
    const stack = await kernelStack();
    await fourClasses(stack);
    const lock = writeLockFor(rawDb(stack));
    // a write meeting another section at the lock (here one held by hand; a class counter's flush,
    // say) goes to the group, which stores it in a turn of its own
    let release!: () => void;
    const section = lock(() => new Promise<void>((resolve) => (release = resolve)));
    const grouped = stack.createDoc({ '~class': 'Alpha', code: 'a', n: 1 });
    release();
    await section;
    await grouped;
    // answered inside that turn, the writer found the lock still held by it (and so did every write after)
    expect(lock.busy()).toBe(false);
    const busyAtAnswer: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      await stack.createDoc({ '~class': 'Gamma', code: `g${i}`, n: i });
      busyAtAnswer.push(lock.busy());
    }
    expect(busyAtAnswer).toEqual([false, false, false, false, false]);
    expect(await stack.countDocuments('Gamma')).toBe(5);
  });

  it('the write lock a serial write holds is given back on every way out: stored, a taken key refused, a failed storage call', async () => {
    const stack = await kernelStack();
    await fourClasses(stack);
    const lock = writeLockFor(rawDb(stack));
    await stack.createDoc({ '~class': 'Alpha', code: 'one', n: 1 });
    expect(lock.busy()).toBe(false);
    // a taken key: storage refuses the natural id (409), the write is settled and refused
    await expectRefused(stack.createDoc({ '~class': 'Alpha', code: 'one', n: 2 }), 'DS_UNIQUE_VIOLATION');
    expect(lock.busy()).toBe(false);
    // the storage call itself fails: refused, the lock given back, nothing stored
    const db = rawDb(stack) as unknown as { _bulkDocs: (request: unknown, options: unknown, done: (err: unknown) => void) => void };
    const inner = db._bulkDocs;
    db._bulkDocs = (_request: unknown, _options: unknown, done: (err: unknown) => void) => done(new Error('disk gone'));
    try {
      await expect(stack.createDoc({ '~class': 'Alpha', code: 'two', n: 2 })).rejects.toThrow('disk gone');
    } finally {
      db._bulkDocs = inner;
    }
    expect(lock.busy()).toBe(false);
    await stack.createDoc({ '~class': 'Alpha', code: 'three', n: 3 });
    expect(lock.busy()).toBe(false);
    expect((await stack.findDocuments('Alpha', {})).map((d) => d.code).sort()).toEqual(['one', 'three']);
    expect(await stack.countDocuments('Alpha')).toBe(2);
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
