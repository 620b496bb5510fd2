import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, definePlugin } from '../../index.js';
import { tapWhen } from '../../kernel/write-plan.js';
import { track, uniqueName } from '../helpers/stack.js';

describe('the write plan: taps declare which classes they have work for', () => {
  it('runs a tap with `when` only for the classes (and origins) it names; a tap without one for all', async () => {
    const seen: string[] = [];
    const picky = definePlugin({
      name: 'picky',
      setup({ hooks }) {
        hooks.beforeValidate.tapPromise(tapWhen('picky', (model) => model.name === 'Sealed'), async (draft) => ({ ...draft, stamped: true }));
        hooks.afterWrite.tapPromise(tapWhen('picky', (_model, origin) => origin === 'replication'), async ([doc]) => void seen.push(`replicated ${doc._id}`));
        hooks.afterWrite.tapPromise('picky-all', async ([doc], ctx) => void seen.push(`${ctx.classModel.name} ${ctx.op}`));
      },
    });
    const stack = track(await createStack({ name: uniqueName('plan'), adapter: 'memory', plugins: [picky] }));
    await Class.create(stack, 'Plain', 'class', '', { label: { type: 'string' } });
    await Class.create(stack, 'Sealed', 'class', '', { label: { type: 'string' } });
    const plain = await stack.createDoc({ '~class': 'Plain', label: 'a' });
    const sealed = await stack.createDoc({ '~class': 'Sealed', label: 'b' });
    expect(plain.stamped).toBeUndefined();
    expect(sealed.stamped).toBe(true);
    expect(seen).toEqual(['Plain create', 'Sealed create']);
    // a tap added later is in the next plan (the plan follows the hooks' taps)
    stack.hooks.afterWrite.tapPromise(tapWhen('late', (model) => model.name === 'Plain'), async ([doc]) => void seen.push(`late ${doc._id}`));
    await stack.updateDoc(plain._id, { label: 'c' });
    expect(seen.slice(2)).toEqual(['Plain update', `late ${plain._id}`]);
  });

  it('a plan is per class revision: a changed class gets a new one', async () => {
    const stack = track(await createStack({ name: uniqueName('plan-rev'), adapter: 'memory', plugins: [] }));
    const seen: string[] = [];
    stack.hooks.validate.tapPromise(tapWhen('needs-code', (model) => 'code' in model.schema), async (draft) => void seen.push(String(draft.code)));
    const things = await Class.create(stack, 'Thing', 'class', '', { label: { type: 'string' } });
    await stack.createDoc({ '~class': 'Thing', label: 'x' });
    expect(seen).toEqual([]);
    await Attribute.create(things, 'code', 'string');
    await stack.createDoc({ '~class': 'Thing', label: 'y', code: 'c1' });
    expect(seen).toEqual(['c1']);
  });
});
