import { describe, expect, it } from 'vitest';
import { createStack, definePlugin, DocstackError, getApi, withPlugin, withoutPlugins, type Plugin, type PluginEntry } from '../../index.js';
import { KEYS } from '../../kit/index.js';
import { jobsPlugin } from '../../plugins/jobs/index.js';
import { validationPlugin } from '../../plugins/validation/index.js';
import { browser, server } from '../../plugins.config.js';
import { browserWithout, rawDb, refusal, track, uniqueName } from '../helpers/stack.js';

const open = <const P extends readonly PluginEntry[]>(plugins: P) => createStack({ name: uniqueName('plugins'), adapter: 'memory', plugins }).then(track);

describe('plugin registry', () => {
  it('refuses two plugins with one name', async () => {
    const a = definePlugin({ name: 'same', setup() {} });
    const b = definePlugin({ name: 'same', setup() {} });
    const err = await refusal(open([a, b]));
    expect(err).toBeInstanceOf(DocstackError);
    expect(err.code).toBe('DS_PLUGIN_DUPLICATE');
  });

  it('refuses a plugin whose requirement is missing, naming both', async () => {
    const needy = definePlugin({ name: 'needy', requires: ['absent'], setup() {} });
    const err = await refusal(open([needy]));
    expect(err.code).toBe('DS_PLUGIN_MISSING_REQUIREMENT');
    expect(err.message).toContain('needy');
    expect(err.message).toContain('absent');
  });

  it('refuses an object that is not a plugin', async () => {
    const err = await refusal(open([{ name: '', setup: () => {} } as Plugin]));
    expect(err.code).toBe('DS_PLUGIN_INVALID');
  });

  it('sets up required plugins first, skips false entries and passes options', async () => {
    const order: string[] = [];
    const seen: unknown[] = [];
    const late = definePlugin({ name: 'late', requires: ['early'], setup: () => void order.push('late') });
    const early = definePlugin<{ flag: number }>({
      name: 'early',
      setup: (_kernel, options) => {
        order.push('early');
        seen.push(options);
      },
    });
    const off = definePlugin({ name: 'off', setup: () => void order.push('off') });
    await open([late, false, [early, { flag: 7 }], null, off && false]);
    expect(order).toEqual(['early', 'late']);
    expect(seen).toEqual([{ flag: 7 }]);
  });

  it('runs taps in stage order, not registration order', async () => {
    const calls: string[] = [];
    const second = definePlugin({
      name: 'second',
      setup: ({ hooks }) => hooks.onOpen.tapPromise({ name: 'second', stage: 10 }, async () => void calls.push('second')),
    });
    const first = definePlugin({
      name: 'first',
      setup: ({ hooks }) => hooks.onOpen.tapPromise({ name: 'first', stage: -10 }, async () => void calls.push('first')),
    });
    await open([second, first]);
    expect(calls).toEqual(['first', 'second']);
  });

  it('gives each stack its own strict container', async () => {
    const registered: unknown[] = [];
    const plugin = definePlugin({
      name: 'svc',
      setup: ({ container, stack }) => {
        registered.push(container.resolve(KEYS.stack));
        expect(container.resolve(KEYS.stack)).toBe(stack);
      },
    });
    const one = await open([plugin]);
    const two = await open([plugin]);
    expect(registered).toEqual([one, two]);
    expect(one.container).not.toBe(two.container);
    expect(() => one.container.resolve('nothingRegistered')).toThrow();
  });

  it('freezes the hook map: plugins tap hooks, they do not add them', async () => {
    const stack = await open([]);
    expect(Object.isFrozen(stack.hooks)).toBe(true);
    expect(Object.keys(stack.hooks).sort()).toEqual(
      ['admit', 'afterRead', 'afterWrite', 'attachmentRead', 'beforeValidate', 'beforeWrite', 'checkAttribute', 'classSchema', 'countMatches', 'defaultValue', 'denials', 'findCandidates', 'hidden', 'hiddenIds', 'onClose', 'onOpen', 'refused', 'replicating', 'resolveDenial', 'validate'].sort(),
    );
  });

  it('closes storage when a plugin fails to set up, so the name can be reopened', async () => {
    const name = uniqueName('failing');
    const broken = definePlugin({ name: 'broken', setup: () => { throw new Error('boom'); } });
    await expect(createStack({ name, adapter: 'memory', plugins: [broken] })).rejects.toThrow('boom');
    const again = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    expect(again.isOpen).toBe(true);
  });

  it('has presets whose names are unique and whose server preset contains the browser one', () => {
    const names = (list: readonly unknown[]) => list.filter(Boolean).map((p) => (Array.isArray(p) ? (p[0] as Plugin) : (p as Plugin)).name);
    expect(new Set(names(browser)).size).toBe(names(browser).length);
    for (const name of names(browser)) expect(names(server)).toContain(name);
  });
});

describe('the write pipeline', () => {
  it('runs beforeValidate → validate → beforeWrite → store → afterWrite, and afterRead on reads', async () => {
    const events: string[] = [];
    const spy = definePlugin({
      name: 'spy',
      setup({ hooks }) {
        hooks.beforeValidate.tapPromise('spy', async (draft, ctx) => {
          events.push(`beforeValidate:${ctx.op}:${ctx.origin}`);
          return { ...draft, stamped: 'yes' };
        });
        hooks.validate.tapPromise('spy', async (draft) => void events.push(`validate:${String(draft.stamped)}`));
        hooks.beforeWrite.tapPromise('spy', async (doc) => {
          events.push('beforeWrite');
          return { ...doc, sealed: true };
        });
        hooks.afterWrite.tapPromise('spy', async (docs) => void events.push(`afterWrite:${String(docs[0]._rev).slice(0, 2)}`));
        hooks.afterRead.tapPromise('spy', async (doc) => {
          events.push('afterRead');
          return { ...doc, sealed: false };
        });
      },
    });
    const stack = await open([spy]);
    const { Class } = await import('../../index.js');
    await Class.create(stack, 'Thing', 'class', '', { stamped: { type: 'string' }, sealed: { type: 'boolean' } });
    const created = await stack.createDoc({ '~class': 'Thing' });
    expect(events).toEqual(['beforeValidate:create:local', 'validate:yes', 'beforeWrite', 'afterRead', 'afterWrite:1-']);
    // the caller gets the validated draft read back like any read (afterRead), never the stored form
    expect(created.sealed).toBe(false);
    const raw = (await stack.storage.get(created._id)) as Record<string, unknown>;
    expect(raw.sealed).toBe(true);
    const read = await stack.getDocument(created._id);
    expect(read?.sealed).toBe(false);
    expect(events.at(-1)).toBe('afterRead');
  });

  it('lets a validate tap refuse a write, storing nothing', async () => {
    const refuser = definePlugin({
      name: 'refuser',
      setup: ({ hooks }) =>
        hooks.validate.tapPromise('refuser', async (draft) => {
          if (draft.n === 13) throw new DocstackError('DS_VALIDATION_RANGE', 'unlucky', { path: 'n' });
        }),
    });
    const stack = await open([refuser]);
    const { Class } = await import('../../index.js');
    await Class.create(stack, 'Thing', 'class', '', { n: { type: 'integer' } });
    const err = await refusal(stack.createDocs([{ '~class': 'Thing', n: 1 }, { '~class': 'Thing', n: 13 }]));
    expect(err.code).toBe('DS_VALIDATION_RANGE');
    expect(await stack.findDocuments('Thing')).toHaveLength(0);
  });

  it('skips beforeValidate, validate and beforeWrite for a simple class', async () => {
    const touched: string[] = [];
    const spy = definePlugin({
      name: 'spy',
      setup({ hooks }) {
        hooks.validate.tapPromise('spy', async () => void touched.push('validate'));
        hooks.afterWrite.tapPromise('spy', async () => void touched.push('afterWrite'));
      },
    });
    const stack = await open([spy, ...browser]);
    const { Class } = await import('../../index.js');
    await Class.create(stack, 'Log', 'class', 'raw log lines', { line: { type: 'string', maxLength: 3 } }, { simple: true });
    const doc = await stack.createDoc({ '~class': 'Log', line: 'longer than three', extra: { any: 'thing' } });
    expect(touched).toEqual(['afterWrite']);
    expect(await stack.getDocument(doc._id)).toMatchObject({ line: 'longer than three', extra: { any: 'thing' }, active: true });
  });

  it('makes a class read-only where a capability its attributes need is missing (DS_CAPABILITY_MISSING), never storing them unsealed', async () => {
    const { Class } = await import('../../index.js');
    const full = await open(browser);
    await full.unlock('a passphrase for this test');
    await Class.create(full, 'Secret', 'class', '', { pin: { type: 'string', encrypted: true }, label: { type: 'string' } });
    const kept = await full.createDoc({ '~class': 'Secret', pin: '1234', label: 'x' });

    // a stack without the encryption plugin cannot define the key, but takes the class from a
    // peer (ingest): reads work, every write is refused
    const plain = await open(browserWithout('encryption'));
    const local = await refusal(Class.create(plain, 'Secret', 'class', '', { pin: { type: 'string', encrypted: true } }));
    expect(local).toMatchObject({ code: 'DS_ATTRIBUTE_CONFIG_INVALID', path: 'pin' });
    const classDoc = await rawDb(full).get('Secret', { revs: true });
    expect(await plain.ingest([classDoc])).toEqual([expect.objectContaining({ id: 'Secret', ok: true })]);
    for (const write of [
      () => plain.createDoc({ '~class': 'Secret', pin: '1234', label: 'x' }),
      () => plain.createDoc({ '~class': 'Secret', label: 'no pin' }),
    ]) {
      const err = await refusal(write());
      expect(err.code).toBe('DS_CAPABILITY_MISSING');
      expect(err.path).toBe('pin');
      expect(err.details).toMatchObject({ className: 'Secret', capability: 'encrypted' });
    }
    expect(await plain.findDocuments('Secret')).toHaveLength(0);
    expect(kept.pin).toBe('1234');

    // a plugin that provides the capability lifts it (here a stand-in sealer)
    const sealer = definePlugin({
      name: 'fake-sealer',
      setup: ({ hooks, defineConfigKey }) => {
        defineConfigKey({ key: 'encrypted', rule: (v) => v });
        hooks.beforeWrite.tapPromise('fake-sealer', async (doc) => (doc.pin === undefined ? doc : { ...doc, pin: { '~enc': 1, ct: 'opaque' } }));
      },
    });
    const sealed = await open([...browserWithout('encryption'), sealer]);
    await Class.create(sealed, 'Secret', 'class', '', { pin: { type: 'string', encrypted: true } });
    const doc = await sealed.createDoc({ '~class': 'Secret', pin: '1234' });
    expect(((await sealed.storage.get(doc._id)) as Record<string, unknown>).pin).toEqual({ '~enc': 1, ct: 'opaque' });
  });

  it('emits a change event per stored document and passes depth to hooks', async () => {
    const depths: number[] = [];
    const spy = definePlugin({ name: 'depth-spy', setup: ({ hooks }) => hooks.validate.tapPromise('depth-spy', async (_d, ctx) => void depths.push(ctx.depth)) });
    const stack = await open([spy, ...browser]);
    const { Class } = await import('../../index.js');
    await Class.create(stack, 'Thing', 'class', '', { n: { type: 'integer' } });
    const events: { op: string; id: string; className: string; origin: string }[] = [];
    stack.on('change', (e) => events.push(e));
    const doc = await stack.createDoc({ '~class': 'Thing', n: 1 });
    await stack.updateDoc(doc._id, { n: 2 }, { depth: 3 });
    await stack.deleteDocument(doc._id);
    expect(events.map((e) => [e.op, e.id, e.className, e.origin])).toEqual([
      ['create', doc._id, 'Thing', 'local'],
      ['update', doc._id, 'Thing', 'local'],
      ['delete', doc._id, 'Thing', 'local'],
    ]);
    expect(depths).toEqual([0, 3, 0]);
  });

  it('lets a plugin add one named API to the stack, refusing a second with the same name', async () => {
    const api = { hello: () => 'hi' };
    const adds = definePlugin({ name: 'adds', setup: ({ stack }) => stack.defineExtension('greeter', api) });
    const again = definePlugin({ name: 'again', setup: ({ stack }) => stack.defineExtension('greeter', {}) });
    const stack = await open([adds]);
    expect((stack as unknown as { greeter: typeof api }).greeter.hello()).toBe('hi');
    expect((await refusal(open([adds, again]))).code).toBe('DS_PLUGIN_DUPLICATE');
    expect((await refusal(open([definePlugin({ name: 'clash', setup: ({ stack: s }) => s.defineExtension('createDoc', 1) })]))).code).toBe('DS_PLUGIN_DUPLICATE');
  });

  it('types and serves plugin APIs: getApi by plugin object, members only for the plugins given', async () => {
    const greeter = definePlugin({
      name: 'greeter',
      setup: () => ({ hello: (who: string) => `hello ${who}` }),
      members: (api) => ({ greet: api.hello }),
    });
    const withGreeter = await open([greeter]);
    expect(withGreeter.greet('ann')).toBe('hello ann'); // typed: greet exists on this stack's type
    expect(getApi(withGreeter, greeter)?.hello('bob')).toBe('hello bob');

    const plain = await open([validationPlugin]);
    // @ts-expect-error a stack opened without the jobs plugin has no `jobs` member, in its type too
    expect(plain.jobs).toBeUndefined();
    expect(getApi(plain, jobsPlugin)).toBeUndefined();
    expect(getApi(plain, greeter)).toBeUndefined();
  });

  it("limits use() in setup to the plugins a plugin declares (requires or optional)", async () => {
    const base = definePlugin({ name: 'base', setup: () => ({ n: 41 }) });
    let seen: number | undefined;
    const declared = definePlugin({ name: 'declared', requires: ['base'], setup: ({ use }) => void (seen = use(base)!.n + 1) });
    await open([declared, base]);
    expect(seen).toBe(42);

    const optional = definePlugin({ name: 'optional-user', optional: ['base'], setup: ({ use }) => void (seen = use(base)?.n) });
    await open([optional]);
    expect(seen).toBeUndefined(); // optional and absent: undefined, not an error

    const sneaky = definePlugin({ name: 'sneaky', setup: ({ use }) => void use(base) });
    const err = await refusal(open([base, sneaky]));
    expect(err.code).toBe('DS_PLUGIN_MISSING_REQUIREMENT');
    expect(err.message).toContain('without listing it');
  });

  it('withPlugin replaces a preset entry in place (changing its options), withoutPlugins drops entries', async () => {
    const custom = withPlugin(browser, jobsPlugin, { platform: 'server', scheduler: false });
    expect(custom).toHaveLength(browser.length);
    expect(custom.find((e) => Array.isArray(e) && e[0] === jobsPlugin)).toEqual([jobsPlugin, { platform: 'server', scheduler: false }]);
    const stack = await open(custom);
    expect(typeof stack.jobs.define).toBe('function');
    expect(withoutPlugins(browser, 'sync', 'retention').map((e) => (Array.isArray(e) ? e[0].name : (e as Plugin).name))).not.toContain('sync');
  });

  it('lets plugins check attribute models through hooks (checkAttribute, defaultValue), not container slots', async () => {
    const noBlobs = definePlugin({
      name: 'no-blobs',
      setup: ({ hooks }) => {
        hooks.checkAttribute.tap('no-blobs', (attribute) => {
          if (attribute.type === 'object' && attribute.isArray) throw new DocstackError('DS_ATTRIBUTE_CONFIG_INVALID', 'no arrays of objects here', { path: attribute.name });
        });
        hooks.defaultValue.tap('no-blobs', (value, { attribute }) => (attribute.type === 'string' && typeof value === 'string' ? value.trim() : value));
      },
    });
    const stack = await open([noBlobs]);
    const { Class } = await import('../../index.js');
    const err = await refusal(Class.create(stack, 'Thing', 'class', '', { parts: { type: 'object', isArray: true } }));
    expect(err.code).toBe('DS_ATTRIBUTE_CONFIG_INVALID');
    const thing = await Class.create(stack, 'Thing', 'class', '', { name: { type: 'string', defaultValue: '  padded  ' } });
    expect(thing.model.schema.name.defaultValue).toBe('padded');
    // a reference attribute needs the plugin that defines the type (domains): none here
    expect((await refusal(Class.create(stack, 'Other', 'class', '', { r: { type: 'reference', domain: 'd' } }))).code).toBe('DS_ATTRIBUTE_TYPE_UNKNOWN');
  });
});
