import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, definePlugin } from '../../index.js';
import { planFor, tapWhen } from '../../kernel/write-plan.js';
import { memoryStack, track, uniqueName } from '../helpers/stack.js';

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

  it('a tap may name the operations it has work for: a create, an update and a delete each get their plan', async () => {
    const stack = track(await createStack({ name: uniqueName('plan-op'), adapter: 'memory', plugins: [] }));
    const seen: string[] = [];
    stack.hooks.afterWrite.tapPromise(tapWhen('changes-only', (_model, _origin, op) => op !== 'create'), async ([doc], ctx) => void seen.push(`${ctx.op} ${doc.label}`));
    const things = await Class.create(stack, 'Thing', 'class', '', { label: { type: 'string' } });
    const made = await stack.createDoc({ '~class': 'Thing', label: 'a' });
    await stack.updateDoc(made._id, { label: 'b' });
    await stack.deleteDocument(made._id);
    expect(seen).toEqual(['update b', 'delete b']);
    // a plan without an op (a read's) keeps the tap: its `when` answers for every op
    expect(planFor(stack.hooks, things.model, 'local').afterWrite).not.toBeNull();
    expect(planFor(stack.hooks, things.model, 'local', 'create').afterWrite).toBeNull();
  });

  it('the browser preset plans no beforeWrite and no afterWrite for a create of a class without references (no copies of the document)', async () => {
    const stack = await memoryStack();
    const notes = await Class.create(stack, 'Note', 'class', '', { title: { type: 'string', primaryKey: true } });
    const model = notes.model;
    expect(planFor(stack.hooks, model, 'local', 'create').beforeWrite).toBeNull();
    expect(planFor(stack.hooks, model, 'local', 'create').afterWrite).toBeNull();
    // an update keeps the transactions plugin's beforeWrite; a delete the domains plugin's afterWrite (a relation's target)
    expect(planFor(stack.hooks, model, 'local', 'update').beforeWrite).not.toBeNull();
    expect(planFor(stack.hooks, model, 'local', 'delete').afterWrite).not.toBeNull();
    expect(planFor(stack.hooks, model, 'replication', 'create').afterWrite).not.toBeNull();
    // what the create answers is the stored document, read back the same
    const note = await stack.createDoc({ '~class': 'Note', title: 'n' });
    expect(await stack.getDocument(note._id)).toEqual(note);
  });
});
