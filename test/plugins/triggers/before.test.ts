/**
 * before-triggers: they change drafts (and the result is validated), refuse writes (nothing
 * stored), run in order, and only for the operations they name.
 */
import { describe, expect, it } from 'vitest';
import { DocstackError } from '../../../index.js';
import { addTrigger } from '../../../plugins/triggers/index.js';
import { registerTriggerHandler } from '../../../plugins/triggers/index.js';
import { expectRefused } from '../../helpers/stack.js';
import { triggerStack } from './setup.js';

const before = (name: string, handler: string, on: string[], extra: Record<string, unknown> = {}) => ({ name, when: 'before', on, handler, ...extra });

describe('before-triggers change the document', () => {
  it('stores what the trigger returned, after the defaults were stamped', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('flag', 'test.set', ['create'], { params: { note: 'set by trigger' } }));
    const created = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(created.note).toBe('set by trigger');
    expect(created.priority).toBe(3); // the validation plugin's default was there before the trigger
    const stored = await t.stack.getDocument(created._id);
    expect(stored?.note).toBe('set by trigger');
  });

  it('keeps changes a handler made in place to its copy when it returns nothing', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('suffix', 'test.suffix', ['create', 'update'], { params: { suffix: '!' } }));
    const created = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(created.title).toBe('a!');
    const updated = await t.stack.updateDoc(created._id, { title: 'b' });
    expect(updated.title).toBe('b!');
    expect((await t.stack.getDocument(created._id))?.title).toBe('b!');
  });

  it('validates the result: a trigger setting an invalid value is refused by validation, nothing stored', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('bad', 'test.set', ['create', 'update'], { params: { priority: 99 } }));
    await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a', priority: 2 }), 'DS_VALIDATION_RANGE', 'priority');
    expect(await t.count()).toBe(0);
    await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a' }), 'DS_VALIDATION_RANGE', 'priority');
    expect(await t.count()).toBe(0);
  });

  it('refuses a draft holding a value that is not JSON before a handler sees it', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('flag', 'test.set', ['create']));
    await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a', note: (() => 'x') as unknown as string }), 'DS_DOC_INVALID');
    expect(t.calls).toEqual([]);
    expect(await t.count()).toBe(0);
  });

  it('refuses a trigger that changes an engine field, naming the trigger', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('rename', 'test.set', ['create'], { params: { _id: 'Task-mine' } }));
    const err = await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a' }), 'DS_DOC_PROTECTED_FIELD', '_id');
    expect(err.message).toContain('"rename"');
    expect(await t.count()).toBe(0);
  });
});

describe('before-triggers refuse the write', () => {
  it('surfaces the trigger name and message as DS_TRIGGER_REFUSED, with the cause, and stores nothing', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('guard', 'test.refuse', ['create'], { params: { message: 'titles need a ticket' } }));
    const err = await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a' }), 'DS_TRIGGER_REFUSED');
    expect(err.message).toContain('"guard"');
    expect(err.message).toContain('titles need a ticket');
    expect(err.details?.trigger).toBe('guard');
    expect((err.cause as Error).message).toBe('titles need a ticket');
    expect(await t.count()).toBe(0);
  });

  it('refuses the whole batch of a createDocs call when one draft is refused', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('no-x', 'test.refuse', ['create']));
    await addTrigger(t.tasks, before('only-x', 'test.log', ['create'], { order: -1 }));
    await expectRefused(t.stack.createDocs([{ '~class': 'Task', title: 'a' }, { '~class': 'Task', title: 'b' }]), 'DS_TRIGGER_REFUSED');
    expect(await t.count()).toBe(0);
  });

  it('refuses updates and deletes too, leaving the stored document as it was', async () => {
    const t = await triggerStack();
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    const stored = await t.stack.storage.get(doc._id);
    await addTrigger(t.tasks, before('frozen', 'test.refuse', ['update', 'delete'], { params: { message: 'frozen' } }));
    await expectRefused(t.stack.updateDoc(doc._id, { title: 'b' }), 'DS_TRIGGER_REFUSED');
    await expectRefused(t.stack.deleteDocument(doc._id), 'DS_TRIGGER_REFUSED');
    expect(await t.stack.storage.get(doc._id)).toEqual(stored);
  });

  it('keeps the attribute path of a DocstackError the handler threw', async () => {
    const t = await triggerStack();
    registerTriggerHandler(t.stack, 'test.path', () => {
      throw new DocstackError('DS_VALIDATION_TYPE', 'note must mention a ticket', { path: 'note' });
    });
    await addTrigger(t.tasks, before('ticket', 'test.path', ['create']));
    const err = await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a' }), 'DS_TRIGGER_REFUSED', 'note');
    expect((err.cause as DocstackError).code).toBe('DS_VALIDATION_TYPE');
    expect(await t.count()).toBe(0);
  });
});

describe('order and operations', () => {
  it('runs triggers by order (lower first), ties by name, each on the previous result', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('c', 'test.suffix', ['create'], { params: { suffix: '-c' } }));
    await addTrigger(t.tasks, before('b', 'test.suffix', ['create'], { params: { suffix: '-b' }, order: 5 }));
    await addTrigger(t.tasks, before('a', 'test.suffix', ['create'], { params: { suffix: '-a' }, order: 5 }));
    await addTrigger(t.tasks, before('z', 'test.suffix', ['create'], { params: { suffix: '-z' }, order: -3 }));
    const created = await t.stack.createDoc({ '~class': 'Task', title: 't' });
    expect(t.calls).toEqual(['z:create', 'c:create', 'a:create', 'b:create']);
    expect(created.title).toBe('t-z-c-a-b');
  });

  it('runs a trigger only for the operations in its `on`', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('on-create', 'test.log', ['create']));
    await addTrigger(t.tasks, before('on-update', 'test.log', ['update']));
    await addTrigger(t.tasks, before('on-delete', 'test.log', ['delete']));
    await addTrigger(t.tasks, before('on-change', 'test.log', ['update', 'create']));
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(t.calls.splice(0)).toEqual(['on-change:create', 'on-create:create']);
    await t.stack.updateDoc(doc._id, { title: 'b' });
    expect(t.calls.splice(0)).toEqual(['on-change:update', 'on-update:update']);
    await t.stack.deleteDocument(doc._id);
    expect(t.calls.splice(0)).toEqual(['on-delete:delete']);
  });

  it('does not let a delete trigger change what is stored (a delete only deactivates)', async () => {
    const t = await triggerStack();
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    await addTrigger(t.tasks, before('stamp', 'test.set', ['delete'], { params: { note: 'gone' } }));
    const deleted = await t.stack.deleteDocument(doc._id);
    expect(t.calls).toEqual(['stamp:delete']);
    expect(deleted.active).toBe(false);
    expect(deleted.note).toBeUndefined();
  });

  it('leaves other classes alone', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, before('guard', 'test.refuse', ['create']));
    await t.stack.createDoc({ '~class': 'Audit', title: 'free' });
    expect(t.calls).toEqual([]);
    expect(await t.count('Audit')).toBe(1);
  });
});
