import { describe, expect, it } from 'vitest';
import { Class, type ClassModel, type ClientStack } from '../../index.js';
import type { WritePart } from '../../contracts/unit-of-work.js';
import { planFor } from '../../kernel/write-plan.js';
import { memoryStack, track } from '../helpers/stack.js';

/**
 * The functions a usual create runs — the pipeline taps a plain class's create runs, every write
 * part's `admit` and `begin`, the stack's `change` announcement — are made once for the process:
 * the same function object on every stack, or a function bound to a stack's state (its target made
 * once). V8 keeps a function's optimized code only while some function object of its kind lives,
 * so closures made per stack died with their stack, and after a full garbage collection every new
 * stack compiled them again on its write path (docs/benchmarks.md#code-shared-by-every-stack).
 */

type Fn = (...args: never[]) => unknown;
const PLANNED = ['beforeValidate', 'validate', 'beforeWrite', 'afterWrite', 'afterRead'] as const;

/** made once for the process: the same object on both stacks, or bound (a function made per stack is neither) */
function sharedOrBound(a: Fn | undefined, b: Fn | undefined): boolean {
  return a === b || (typeof a === 'function' && a.name.startsWith('bound '));
}

async function openWithItems(): Promise<{ stack: ClientStack; model: ClassModel }> {
  const stack = track(await memoryStack());
  await Class.create(stack, 'Category', 'class', '', { name: { type: 'string', mandatory: true } });
  const items = await Class.create(stack, 'Item', 'class', '', {
    code: { type: 'string', primaryKey: true, maxLength: 24 },
    quantity: { type: 'integer', min: 0 },
    releasedOn: { type: 'date', format: 'YYYY-MM-DD' },
    status: { type: 'enum', values: ['draft', 'active'] },
    category: { type: 'foreign_key', targetClass: 'Category', mandatory: true },
  });
  return { stack, model: items.model };
}

const partsOf = (stack: ClientStack) => (stack as unknown as { pipeline: { parts: WritePart[] } }).pipeline.parts;
const announceOf = (stack: ClientStack) => (stack as unknown as { pipeline: { deps: { announce: Fn } } }).pipeline.deps.announce;

describe('the code a usual create runs is made once for the process, not per stack', () => {
  it('every pipeline tap a plain create runs, every write part and the change announcement', async () => {
    const [a, b] = [await openWithItems(), await openWithItems()];
    const made: string[] = [];
    for (const hook of PLANNED) {
      const tapsA = (planFor(a.stack.hooks, a.model, 'local', 'create')[hook] as { taps?: { name: string; fn: Fn }[] } | null)?.taps ?? [];
      const tapsB = (planFor(b.stack.hooks, b.model, 'local', 'create')[hook] as { taps?: { name: string; fn: Fn }[] } | null)?.taps ?? [];
      expect(tapsB.map((t) => t.name)).toEqual(tapsA.map((t) => t.name));
      tapsA.forEach((tap, i) => sharedOrBound(tap.fn, tapsB[i].fn) || made.push(`${hook} tap of ${tap.name}`));
    }
    const [partsA, partsB] = [partsOf(a.stack), partsOf(b.stack)];
    expect(partsB.map((p) => p.name)).toEqual(partsA.map((p) => p.name));
    partsA.forEach((part, i) => {
      sharedOrBound(part.begin as Fn, partsB[i].begin as Fn) || made.push(`begin of the ${part.name} part`);
      // capabilities' admit stays a closure per stack: a WeakMap lookup, and the browser bundle has no bytes for more
      if (part.admit && part.name !== 'capabilities') sharedOrBound(part.admit as Fn, partsB[i].admit as Fn) || made.push(`admit of the ${part.name} part`);
    });
    sharedOrBound(announceOf(a.stack), announceOf(b.stack)) || made.push('the change announcement');
    // the browser preset's usual create runs taps of these plugins: none of them is made per stack
    expect(made).toEqual([]);
    expect(PLANNED.flatMap((hook) => ((planFor(a.stack.hooks, a.model, 'local', 'create')[hook] as { taps?: { name: string }[] } | null)?.taps ?? []).map((t) => `${hook}:${t.name}`))).toEqual(
      expect.arrayContaining(['beforeValidate:validation', 'validate:validation', 'validate:encryption', 'validate:authority']),
    );
  });

  it('a shared tap still works on its own stack’s state: a foreign key known on one stack is not known on the other', async () => {
    const [a, b] = [await openWithItems(), await openWithItems()];
    await a.stack.createDoc({ '~class': 'Category', _id: 'Category-1', name: 'one' });
    const made = await a.stack.createDoc({ '~class': 'Item', code: 'i1', category: 'Category-1' });
    await expect(b.stack.createDoc({ '~class': 'Item', code: 'i1', category: 'Category-1' })).rejects.toMatchObject({ code: 'DS_VALIDATION_FOREIGN_KEY' });
    expect(await b.stack.getDocument(made._id)).toBeNull();
    expect(await a.stack.getDocument(made._id)).toMatchObject({ code: 'i1', category: 'Category-1' });
  });
});
