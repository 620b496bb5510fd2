/**
 * Attribute types and config keys contributed by plugins (kernel/model/attribute-types.ts):
 * the domains plugin's `reference`, the encryption plugin's `encrypted`, and a third-party type
 * — their rules, their values' validation, and a class using one on a stack without its plugin.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, createError, createStack, definePlugin, type ClientStack } from '../../index.js';
import { browser } from '../../plugins.config.js';
import { refusedAttribute, refusedClass, schemaCases } from '../helpers/attribute-cases.js';
import { expectRefused, kernelStack, rawDb, track, uniqueName } from '../helpers/stack.js';

const pluginCases = schemaCases.filter((c) => c.plugin !== undefined);

const openBrowser = async () => track(await createStack({ name: uniqueName('types'), adapter: 'memory', plugins: browser })) as unknown as ClientStack;

describe('types and keys the preset plugins define', () => {
  it.each(pluginCases)('$plugin refuses $label ($code) through Attribute.create and Class.create', async ({ name, type, config = {}, code }) => {
    const stack = await openBrowser();
    const cls = await Class.create(stack, 'Thing', 'class', '', { title: { type: 'string' } });
    await refusedAttribute(cls, name, type, config, code);
    await refusedClass(stack, 'Fresh', { ok: { type: 'string' }, [name]: { type, ...config } }, code, name);
  });

  it('encrypted attributes are refused on a simple class (DS_ATTRIBUTE_ENCRYPTED_SIMPLE), fine elsewhere', async () => {
    const stack = await openBrowser();
    await refusedClass(stack, 'Plain', { secret: { type: 'string', encrypted: true } }, 'DS_ATTRIBUTE_ENCRYPTED_SIMPLE', 'secret', { simple: true });
    const plain = await Class.create(stack, 'Plain', 'class', '', { title: { type: 'string' } }, { simple: true });
    await refusedAttribute(plain, 'secret', 'string', { encrypted: true }, 'DS_ATTRIBUTE_ENCRYPTED_SIMPLE');
    await refusedAttribute(plain, 'secret', 'string', { encrypted: 'yes' }, 'DS_ATTRIBUTE_CONFIG_INVALID');
    const cls = await Class.create(stack, 'Thing', 'class', '', { title: { type: 'string' } });
    expect(await Attribute.create(cls, 'secret', 'string', '', { encrypted: true })).toMatchObject({ name: 'secret', encrypted: true });
  });
});

/** A third-party plugin's own type, written against the package entry. */
const emailErrors = { emailDomain: createError('DS_EMAIL_DOMAIN', 'An email attribute names an allowed domain that is not a host name.') };
const emailPlugin = definePlugin({
  name: 'email-type',
  errors: Object.values(emailErrors),
  setup({ defineAttribute }) {
    defineAttribute({
      type: 'email',
      keyable: true,
      label: 'an e-mail address',
      keys: {
        allowedDomain: (v, a) => {
          if (typeof v === 'string' && /^[a-z0-9.-]+$/.test(v)) return v;
          throw emailErrors.emailDomain(`"allowedDomain" of "${a.name}" is not a host name.`, { path: a.name });
        },
      },
      validate: (value, a) => {
        if (typeof value !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(value)) return 'expected an e-mail address';
        if (typeof a.allowedDomain === 'string' && !value.endsWith(`@${a.allowedDomain}`)) return `expected an address at ${a.allowedDomain}`;
        return undefined;
      },
    });
  },
});

describe('a type a third-party plugin defines (defineAttribute)', () => {
  it('has its own config keys and value check, and can be a primary key', async () => {
    const stack = track(await createStack({ name: uniqueName('email'), adapter: 'memory', plugins: [...browser, emailPlugin] }));
    await refusedClass(stack, 'Bad', { mail: { type: 'email', allowedDomain: 'not a host' } }, 'DS_EMAIL_DOMAIN', 'mail');
    await refusedClass(stack, 'Bad', { mail: { type: 'email', maxLength: 3 } }, 'DS_ATTRIBUTE_CONFIG_INVALID', 'mail');
    await Class.create(stack, 'Member', 'class', '', { mail: { type: 'email', allowedDomain: 'example.org', primaryKey: true } });
    const ann = await stack.createDoc({ '~class': 'Member', mail: 'ann@example.org' });
    expect(ann.mail).toBe('ann@example.org');
    const err = await expectRefused(stack.createDoc({ '~class': 'Member', mail: 'bob@elsewhere.net' }), 'DS_VALIDATION_TYPE', 'mail');
    expect(err.message).toContain('expected an address at example.org');
    await expectRefused(stack.createDoc({ '~class': 'Member', mail: 'ann@example.org' }), 'DS_UNIQUE_VIOLATION');
  });

  it('refuses a plugin that defines a type twice (DS_PLUGIN_INVALID)', async () => {
    const twice = definePlugin({ name: 'twice', setup: ({ defineAttribute }) => defineAttribute({ type: 'string' }) });
    await expectRefused(createStack({ name: uniqueName('twice'), adapter: 'memory', plugins: [twice] }), 'DS_PLUGIN_INVALID');
  });

  it('without the plugin, a class using the type arrives from a peer but is read-only (DS_CAPABILITY_MISSING)', async () => {
    const full = track(await createStack({ name: uniqueName('email'), adapter: 'memory', plugins: [...browser, emailPlugin] }));
    await Class.create(full, 'Member', 'class', '', { mail: { type: 'email' }, note: { type: 'string' } });
    const doc = await full.createDoc({ '~class': 'Member', mail: 'ann@example.org', note: 'x' });
    const bare = await kernelStack();
    const results = await bare.ingest([await rawDb(full).get('Member', { revs: true }), await rawDb(full).get(doc._id, { revs: true })]);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(results[1]).toMatchObject({ code: 'DS_CAPABILITY_MISSING', status: 409 });
    await expect(Class.create(bare, 'Other', 'class', '', { mail: { type: 'email' } })).rejects.toMatchObject({ code: 'DS_ATTRIBUTE_TYPE_UNKNOWN' });
    const write = await bare.createDoc({ '~class': 'Member', note: 'y' }).catch((e: unknown) => e);
    expect(write).toMatchObject({ code: 'DS_CAPABILITY_MISSING', details: { capability: 'email' } });
  });
});
