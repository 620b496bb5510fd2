/**
 * The one handler registry type (kernel/handler-registry.ts): its name rule and codes, on its
 * own and through the two plugins that keep one per stack (trigger handlers, job handlers),
 * which must refuse the same things with the same codes.
 */
import { describe, expect, it } from 'vitest';
import { Class, createStack, definePlugin, DocstackError, getApi, registeredErrors, type ClientStack, type PluginEntry } from '../../index.js';
import { HANDLER_NAME, HandlerRegistry, type AnyHandler } from '../../kit/index.js';
import { addTrigger, registerTriggerHandler, TRIGGER_HANDLERS, triggersPlugin } from '../../plugins/triggers/index.js';
import { JOB_HANDLERS, jobsPlugin, registerJobHandler } from '../../plugins/jobs/index.js';
import { browser } from '../../plugins.config.js';
import { browserWithout, expectRefused, track } from '../helpers/stack.js';

const noop = () => undefined;

/** Runs a synchronous call as a promise, so expectRefused can check what it throws. */
const attempt = (fn: () => unknown) => Promise.resolve().then(fn);

const VALID = ['a', 'x', 'greet', 'slugs.fill', 'retention.sweep', 'test.bad-audit', 'acme:audit_2', 'Acme.Thing', `a${'b'.repeat(99)}`];
const INVALID: unknown[] = ['', '1x', '_x', '.x', '-x', 'has space', 'a/b', 'é', 'a\n', `a${'b'.repeat(100)}`, 42, undefined, null];

describe('HandlerRegistry', () => {
  it('accepts a letter then letters, digits and "_ . : -", at most 100 characters', () => {
    for (const name of VALID) expect(HANDLER_NAME.test(name), name).toBe(true);
    for (const name of INVALID) expect(typeof name === 'string' && HANDLER_NAME.test(name), String(name)).toBe(false);
    const registry = new HandlerRegistry<() => void>('test handler');
    for (const name of VALID) registry.register(name, noop);
    expect(registry.names()).toEqual([...VALID].sort());
  });

  it.each(INVALID.map((name) => [JSON.stringify(name) ?? String(name), name]))('refuses the name %s with DS_HANDLER_INVALID', (_label, name) => {
    const registry = new HandlerRegistry<() => void>('test handler');
    let err: unknown;
    try {
      registry.register(name as string, noop);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DocstackError);
    expect(err).toMatchObject({ code: 'DS_HANDLER_INVALID', path: 'name', details: { kind: 'test handler' } });
    expect((err as Error).message).toContain('test handler name');
    expect(registry.names()).toEqual([]);
  });

  it('refuses a handler that is not a function, or options that are not an object', () => {
    const registry = new HandlerRegistry<() => void, { label?: string }>('test handler');
    expect(() => registry.register('fine', 'return 1' as never)).toThrow(expect.objectContaining({ code: 'DS_HANDLER_INVALID', path: 'handler' }));
    expect(() => registry.register('fine', noop, 'x' as never)).toThrow(expect.objectContaining({ code: 'DS_HANDLER_INVALID', path: 'options' }));
    expect(registry.has('fine')).toBe(false);
  });

  it('refuses a duplicate with DS_HANDLER_DUPLICATE and keeps the first', () => {
    const registry = new HandlerRegistry<() => string>('test handler');
    const first = () => 'first';
    registry.register('same', first);
    expect(() => registry.register('same', () => 'second')).toThrow(
      expect.objectContaining({ code: 'DS_HANDLER_DUPLICATE', path: 'name', details: { kind: 'test handler', handler: 'same' } }),
    );
    expect(registry.get('same')).toBe(first);
  });

  it('looks handlers up: get, require, has, names, options, unregister', () => {
    const registry = new HandlerRegistry<(n: number) => number, { label?: string }>('test handler');
    const double = (n: number) => n * 2;
    registry.register('math.double', double, { label: 'twice' });
    registry.register('math.id', (n) => n);
    expect(registry.kind).toBe('test handler');
    expect(registry.get('math.double')).toBe(double);
    expect(registry.require('math.double')(4)).toBe(8);
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.get(undefined)).toBeUndefined();
    expect(registry.has('math.id')).toBe(true);
    expect(registry.has(undefined)).toBe(false);
    expect(registry.options('math.double')).toEqual({ label: 'twice' });
    expect(registry.options('math.id')).toEqual({});
    expect(registry.options('nope')).toBeUndefined();
    expect(registry.names()).toEqual(['math.double', 'math.id']);
    expect(registry.unregister('math.id')).toBe(true);
    expect(registry.unregister('math.id')).toBe(false);
    expect(registry.names()).toEqual(['math.double']);
    registry.register('math.id', (n) => n); // a name is free again once unregistered
    expect(registry.has('math.id')).toBe(true);
  });

  it('refuses an unknown name in require with DS_HANDLER_UNKNOWN, listing the registered ones', () => {
    const registry = new HandlerRegistry<() => void>('test handler');
    let err: DocstackError | undefined;
    try {
      registry.require('missing');
    } catch (e) {
      err = e as DocstackError;
    }
    expect(err).toMatchObject({ code: 'DS_HANDLER_UNKNOWN', status: 400, details: { kind: 'test handler', handler: 'missing', registered: [] } });
    expect(err?.path).toBeUndefined();
    expect(err?.message).toContain('"missing"');

    registry.register('b.two', noop);
    registry.register('a.one', noop);
    try {
      registry.require('missing', { path: 'handler', subject: 'The model "m"', details: { model: 'm' } });
    } catch (e) {
      err = e as DocstackError;
    }
    expect(err).toMatchObject({ code: 'DS_HANDLER_UNKNOWN', path: 'handler', details: { kind: 'test handler', handler: 'missing', registered: ['a.one', 'b.two'], model: 'm' } });
    expect(err?.message).toMatch(/^The model "m": no plugin registered a test handler named "missing" on this stack \(registered: a\.one, b\.two\)\.$/);
    expect(() => registry.require(undefined)).toThrow(expect.objectContaining({ code: 'DS_HANDLER_UNKNOWN' }));
  });

  it('keeps its codes as kernel codes, with their statuses', () => {
    expect(registeredErrors().get('DS_HANDLER_INVALID')).toMatchObject({ owner: 'kernel', status: 500 });
    expect(registeredErrors().get('DS_HANDLER_DUPLICATE')).toMatchObject({ owner: 'kernel', status: 500 });
    expect(registeredErrors().get('DS_HANDLER_UNKNOWN')).toMatchObject({ owner: 'kernel', status: 400 });
    // the codes the two plugins had before, each their own, are gone
    expect(registeredErrors().has('DS_TRIGGER_HANDLER_UNKNOWN')).toBe(false);
    expect(registeredErrors().has('DS_JOB_HANDLER_UNKNOWN')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// The same rules through the plugins, on real stacks

async function open(plugins: readonly PluginEntry[] = browser): Promise<ClientStack> {
  return track(await createStack({ name: 'x-' + Math.random().toString(36).slice(2), adapter: 'memory', plugins }));
}

interface Kind {
  kind: string;
  key: string;
  /** registers on a stack, or on a plugin's kernel during setup */
  register(owner: Pick<ClientStack, 'container'>, name: string, handler: unknown): void;
  /** the registry as the plugin exposes it */
  registry(stack: ClientStack): Pick<HandlerRegistry<AnyHandler>, 'kind' | 'has' | 'names' | 'unregister'>;
  /** stores a model naming the handler (a trigger on a class, a job) */
  use(stack: ClientStack, handler: string): Promise<unknown>;
}

const suffix = () => Math.random().toString(36).slice(2, 8);

/** The class the trigger kind stores its triggers on, one per stack. */
const taskClasses = new WeakMap<ClientStack, Promise<Class>>();
function taskClass(stack: ClientStack): Promise<Class> {
  if (!taskClasses.has(stack)) taskClasses.set(stack, Class.create(stack, 'Task', 'class', '', { title: { type: 'string' } }));
  return taskClasses.get(stack)!;
}

const kinds: Kind[] = [
  {
    kind: 'trigger handler',
    key: TRIGGER_HANDLERS,
    register: (stack, name, handler) => registerTriggerHandler(stack, name, handler as never),
    registry: (stack) => getApi(stack, triggersPlugin)!.handlers,
    use: async (stack, handler) => addTrigger(await taskClass(stack), { name: `t${suffix()}`, when: 'after', on: ['create'], handler }),
  },
  {
    kind: 'job handler',
    key: JOB_HANDLERS,
    register: (stack, name, handler) => registerJobHandler(stack, name, handler as never),
    registry: (stack) => stack.container.resolve(JOB_HANDLERS),
    use: (stack, handler) => getApi(stack, jobsPlugin)!.define({ name: `j${suffix()}`, handler }),
  },
];

describe.each(kinds)('the $kind registry of a stack', ({ kind, key, register, registry, use }) => {
  it('is a HandlerRegistry of its kind, in the container under its key', async () => {
    const stack = await open();
    const handlers = registry(stack);
    expect(handlers).toBeInstanceOf(HandlerRegistry);
    expect(handlers.kind).toBe(kind);
    expect(stack.container.resolve(key)).toBe(handlers);
  });

  it('takes every valid name and refuses every invalid one with DS_HANDLER_INVALID', async () => {
    const stack = await open();
    const valid = VALID.filter((name) => !registry(stack).has(name)); // the preset's retention plugin has 'retention.sweep'
    for (const name of valid) register(stack, name, noop);
    for (const name of valid) expect(registry(stack).has(name)).toBe(true);
    for (const name of INVALID) {
      const err = await expectRefused(attempt(() => register(stack, name as string, noop)), 'DS_HANDLER_INVALID', 'name');
      expect(err.details).toMatchObject({ kind });
    }
    await expectRefused(attempt(() => register(stack, 'fine', 'return 1')), 'DS_HANDLER_INVALID', 'handler');
  });

  it('refuses a duplicate with DS_HANDLER_DUPLICATE, also from a plugin setup (the stack does not open)', async () => {
    const stack = await open();
    register(stack, 'acme.once', noop);
    const err = await expectRefused(attempt(() => register(stack, 'acme.once', noop)), 'DS_HANDLER_DUPLICATE', 'name');
    expect(err.details).toEqual({ kind, handler: 'acme.once' });

    const twice = definePlugin({
      name: 'twice',
      requires: [kind === 'job handler' ? 'jobs' : 'triggers'],
      setup(kernel) {
        register(kernel, 'acme.twice', noop);
        register(kernel, 'acme.twice', noop);
      },
    });
    await expectRefused(open([...browser, twice]), 'DS_HANDLER_DUPLICATE', 'name');
  });

  it('refuses a model naming an unknown handler with DS_HANDLER_UNKNOWN on path "handler"', async () => {
    const stack = await open();
    register(stack, 'acme.known', noop);
    await use(stack, 'acme.known');
    const err = await expectRefused(use(stack, 'acme.unknown'), 'DS_HANDLER_UNKNOWN', 'handler');
    expect(err.details).toMatchObject({ kind, handler: 'acme.unknown' });
    expect(err.message).toContain('"acme.unknown"');
    expect(err.message).toContain('acme.known');

    // unregistered through the plugin's registry: the name is unknown again
    expect(registry(stack).unregister('acme.known')).toBe(true);
    await expectRefused(use(stack, 'acme.known'), 'DS_HANDLER_UNKNOWN', 'handler');
  });

  it('is per stack: a handler registered on one stack is unknown on another', async () => {
    const a = await open();
    const b = await open();
    register(a, 'acme.only-a', noop);
    expect(registry(a).has('acme.only-a')).toBe(true);
    expect(registry(b).has('acme.only-a')).toBe(false);
    await expectRefused(use(b, 'acme.only-a'), 'DS_HANDLER_UNKNOWN', 'handler');
  });

  it('refuses registering on a stack without the plugin with DS_PLUGIN_MISSING_REQUIREMENT', async () => {
    const stack = await open(browserWithout('triggers', 'jobs', 'retention'));
    const err = await expectRefused(attempt(() => register(stack, 'acme.x', noop)), 'DS_PLUGIN_MISSING_REQUIREMENT');
    expect(err.details).toMatchObject({ kind });
  });
});
