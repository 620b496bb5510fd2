/**
 * The trigger model: normalisation, and every refusal of addTrigger (shape, handler, job,
 * duplicate, simple class, no plugin), each leaving the stored class document as it was.
 */
import { describe, expect, it } from 'vitest';
import { Class, definePlugin, type ClassModel, type ClientStack, type ErrorCode } from '../../../index.js';
import { removeTrigger, addTrigger } from '../../../plugins/triggers/index.js';
import { registerTriggerHandler, triggersPlugin } from '../../../plugins/triggers/index.js';
import { expectRefused, memoryStack } from '../../helpers/stack.js';
import { preset, presetWithout, triggerStack } from './setup.js';

const storedTriggers = async (stack: ClientStack, name: string) => ((await stack.storage.get(name)) as unknown as ClassModel).triggers;

/** addTrigger is refused with this code (and path), and the class document keeps its triggers. */
async function refusedAdd(cls: Class, model: unknown, code: ErrorCode, path?: string) {
  const before = await storedTriggers(cls.stack, cls.name);
  const err = await expectRefused(addTrigger(cls, model as Record<string, unknown>), code, path);
  expect(await storedTriggers(cls.stack, cls.name)).toEqual(before);
  return err;
}

const valid = { name: 'audit', when: 'after', on: ['create'], handler: 'test.log' };

describe('the trigger model', () => {
  it('is stored normalised in the class document', async () => {
    const t = await triggerStack();
    const stored = await addTrigger(t.tasks, { ...valid, on: ['update', 'create'] });
    const expected = { name: 'audit', description: '', when: 'after', on: ['update', 'create'], handler: 'test.log', params: {}, order: 0, enabled: true };
    expect(stored).toEqual(expected);
    expect(await storedTriggers(t.stack, 'Task')).toEqual([expected]);
    expect(t.tasks.model.triggers).toEqual([expected]);
  });

  it('keeps params, order, enabled and description as given', async () => {
    const t = await triggerStack();
    const model = { ...valid, description: 'logs', params: { to: ['a@b.c'], n: 1, deep: { x: null } }, order: -2, enabled: false };
    expect(await addTrigger(t.tasks, model)).toEqual(model);
  });

  const invalid: [string, unknown, string | undefined][] = [
    ['not an object', 'audit', undefined],
    ['no name', { ...valid, name: undefined }, 'name'],
    ['a name that is not an identifier', { ...valid, name: '1 audit' }, 'name'],
    ['an unknown moment', { ...valid, when: 'during' }, 'when'],
    ['no operations', { ...valid, on: [] }, 'on'],
    ['an operation that is not', { ...valid, on: ['create', 'insert'] }, 'on[1]'],
    ['an operation twice', { ...valid, on: ['create', 'create'] }, 'on'],
    ['`on` as a string', { ...valid, on: 'create' }, 'on'],
    ['both handler and job', { ...valid, job: 'mail' }, 'job'],
    ['neither handler nor job', { name: 'x', when: 'after', on: ['create'] }, 'handler'],
    ['a job on a before-trigger', { name: 'x', when: 'before', on: ['create'], job: 'mail' }, 'job'],
    ['an empty handler name', { ...valid, handler: '' }, 'handler'],
    ['a fractional order', { ...valid, order: 1.5 }, 'order'],
    ['enabled as text', { ...valid, enabled: 'yes' }, 'enabled'],
    ['params as a list', { ...valid, params: [1] }, 'params'],
    ['params that are not JSON', { ...valid, params: { at: new Date() } }, 'params'],
    ['a field the model does not have', { ...valid, code: 'return 1' }, 'code'],
  ];
  it.each(invalid)('refuses %s with DS_TRIGGER_INVALID and its path', async (_label, model, path) => {
    const t = await triggerStack();
    const err = await refusedAdd(t.tasks, model, 'DS_TRIGGER_INVALID', path);
    if (path) expect(err.message).toContain(`"${path}"`);
  });

  it('refuses a handler no plugin registered, listing the registered ones', async () => {
    const t = await triggerStack();
    const err = await refusedAdd(t.tasks, { ...valid, handler: 'mail.send' }, 'DS_HANDLER_UNKNOWN', 'handler');
    expect(err.message).toContain('"mail.send"');
    expect(err.message).toContain('test.log');
  });

  it('refuses a second trigger of the same name, keeping the first', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, valid);
    await refusedAdd(t.tasks, { ...valid, when: 'before' }, 'DS_TRIGGER_EXISTS', 'name');
    expect((await storedTriggers(t.stack, 'Task')).map((x) => (x as { when: string }).when)).toEqual(['after']);
  });

  it('refuses triggers on a simple class (its writes skip the pipeline)', async () => {
    const t = await triggerStack();
    const notes = await Class.create(t.stack, 'Note', 'class', '', { text: { type: 'string' } }, { simple: true });
    const err = await refusedAdd(notes, valid, 'DS_TRIGGER_INVALID');
    expect(err.message).toContain('simple');
  });

  it('refuses removing a trigger the class does not have', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, valid);
    await expectRefused(removeTrigger(t.tasks, 'other'), 'DS_TRIGGER_NOT_FOUND', 'name');
    expect(await storedTriggers(t.stack, 'Task')).toHaveLength(1);
  });
});

describe('job triggers are checked against the jobs API', () => {
  it('refuses a job trigger when the stack has no jobs plugin', async () => {
    const t = await triggerStack({ base: presetWithout('triggers', 'jobs') });
    const err = await refusedAdd(t.tasks, { name: 'mail', when: 'after', on: ['create'], job: 'send-mail' }, 'DS_HANDLER_UNKNOWN', 'job');
    expect(err.message).toContain('jobs plugin');
  });

  it('refuses a job the jobs API does not know', async () => {
    const fakeJobs = definePlugin({
      name: 'jobs',
      setup: () => ({ run: async () => ({}), get: async (name: string) => (name === 'known' ? { name } : null) }),
    });
    const t = await triggerStack({ base: presetWithout('triggers', 'jobs'), extra: [fakeJobs] });
    await refusedAdd(t.tasks, { name: 'mail', when: 'after', on: ['create'], job: 'unknown' }, 'DS_HANDLER_UNKNOWN', 'job');
    expect(await addTrigger(t.tasks, { name: 'mail', when: 'after', on: ['create'], job: 'known' })).toMatchObject({ job: 'known' });
  });
});

describe('without the plugin, and the handler registry', () => {
  it('refuses addTrigger (DS_TRIGGER_UNAVAILABLE) and registering a handler on a stack without the triggers plugin', async () => {
    const stack = await memoryStack({ plugins: preset });
    const tasks = await Class.create(stack, 'Task', 'class', '', { title: { type: 'string' } });
    await refusedAdd(tasks, valid, 'DS_TRIGGER_UNAVAILABLE');
    await expectRefused(Promise.resolve().then(() => registerTriggerHandler(stack, 'x', () => undefined)), 'DS_PLUGIN_MISSING_REQUIREMENT');
  });

  it('refuses a plugin that requires triggers when the triggers plugin is not listed', async () => {
    const needy = definePlugin({ name: 'needy', requires: ['triggers'], setup: () => undefined });
    await expectRefused(memoryStack({ plugins: [...preset, needy] }), 'DS_PLUGIN_MISSING_REQUIREMENT');
  });

  it('refuses a handler name registered twice, or a bad name, or a handler that is not a function', async () => {
    const t = await triggerStack();
    const register = (name: string, handler: unknown) => Promise.resolve().then(() => registerTriggerHandler(t.stack, name, handler as never));
    await expectRefused(register('test.log', () => undefined), 'DS_HANDLER_DUPLICATE', 'name');
    await expectRefused(register('has space', () => undefined), 'DS_HANDLER_INVALID', 'name');
    await expectRefused(register('fine', 'return 1'), 'DS_HANDLER_INVALID', 'handler');
  });

  it('keeps registries per stack: a handler registered on one stack is unknown on another', async () => {
    const a = await memoryStack({ plugins: [...preset, triggersPlugin] });
    const b = await memoryStack({ plugins: [...preset, triggersPlugin] });
    registerTriggerHandler(a, 'only.a', () => undefined);
    const onA = await Class.create(a, 'Task', 'class', '', { title: { type: 'string' } });
    const onB = await Class.create(b, 'Task', 'class', '', { title: { type: 'string' } });
    await addTrigger(onA, { ...valid, handler: 'only.a' });
    await refusedAdd(onB, { ...valid, handler: 'only.a' }, 'DS_HANDLER_UNKNOWN', 'handler');
  });
});
