/**
 * Attribute models with the validation plugin loaded: defaultValue checks (its `defaultValue`
 * tap) through both Attribute.create and Class.create, stamping a default onto existing
 * documents, and the validator following a new attribute at once. The kernel's own refusals
 * are in test/kernel/attributes.test.ts, run with no plugin.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, Domain, DocstackError, type AttributeConfig, type ClientStack, type ErrorCode } from '../../../index.js';
import { expectRefused, memoryStack } from '../../helpers/stack.js';

const classDoc = (stack: ClientStack, name: string) => stack.db.get(name);
const classExists = async (stack: ClientStack, name: string) => {
  const stored = await stack.db.get(name).then(() => true, (err: { status?: number }) => (err.status === 404 ? false : Promise.reject(err)));
  return stored || (await stack.listClasses()).includes(name);
};

/** Attribute.create is refused with `code`, and the class document is exactly what it was. */
async function refusedAttribute(cls: Class, name: string, type: string, config: Record<string, unknown>, code: ErrorCode, path = name) {
  const before = await classDoc(cls.stack, cls.name);
  const err = await expectRefused(Attribute.create(cls, name, type, '', config as AttributeConfig), code, path);
  expect(await classDoc(cls.stack, cls.name)).toEqual(before);
  expect(Object.keys((await cls.stack.requireClass(cls.name)).schema)).toEqual(Object.keys((before as unknown as { schema: object }).schema));
  return err;
}

/** Class.create is refused with `code`, and no class of that name was stored. */
async function refusedClass(stack: ClientStack, name: string, schema: object, code: ErrorCode, path?: string, options = {}) {
  const err = await expectRefused(Class.create(stack, name, 'class', '', schema as Record<string, Record<string, unknown>>, options), code, path);
  expect(await classExists(stack, name)).toBe(false);
  return err;
}

interface Case {
  label: string;
  name: string;
  type: string;
  config?: Record<string, unknown>;
  code: ErrorCode;
}

const schemaCases: Case[] = [
  { label: 'unknown type', name: 'x', type: 'text', code: 'DS_ATTRIBUTE_TYPE_UNKNOWN' },
  { label: 'enum without values', name: 'e', type: 'enum', code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with no values', name: 'e', type: 'enum', config: { values: [] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with duplicate values', name: 'e', type: 'enum', config: { values: ['a', 'b', 'a'] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with an empty value', name: 'e', type: 'enum', config: { values: ['a', ''] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with a non-string value', name: 'e', type: 'enum', config: { values: ['a', 1] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with a { value } that is not a string', name: 'e', type: 'enum', config: { values: [{ value: 'a' }, { value: 2 }] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with an object that is not { value }', name: 'e', type: 'enum', config: { values: [{ value: 'a', label: 'A' }] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with duplicate { value } objects', name: 'e', type: 'enum', config: { values: [{ value: 'a' }, 'a'] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'foreign_key without targetClass', name: 'fk', type: 'foreign_key', code: 'DS_ATTRIBUTE_TARGET_CLASS' },
  { label: 'foreign_key to a class that does not exist', name: 'fk', type: 'foreign_key', config: { targetClass: 'Nowhere' }, code: 'DS_ATTRIBUTE_TARGET_CLASS' },
  { label: 'reference as an array', name: 'r', type: 'reference', config: { domain: 'D', isArray: true }, code: 'DS_ATTRIBUTE_REFERENCE_ARRAY' },
  { label: 'reference without domain', name: 'r', type: 'reference', code: 'DS_ATTRIBUTE_REFERENCE_DOMAIN' },
  { label: 'encrypted primary key', name: 'k', type: 'string', config: { primaryKey: true, encrypted: true }, code: 'DS_ATTRIBUTE_ENCRYPTED_PRIMARY_KEY' },
  { label: 'primary key on an object', name: 'k', type: 'object', config: { primaryKey: true }, code: 'DS_ATTRIBUTE_PRIMARY_KEY' },
  { label: 'primary key on an array', name: 'k', type: 'string', config: { primaryKey: true, isArray: true }, code: 'DS_ATTRIBUTE_PRIMARY_KEY' },
  { label: 'maxLength on an integer', name: 'n', type: 'integer', config: { maxLength: 3 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'precision on an integer', name: 'n', type: 'integer', config: { precision: 2 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'format on a string', name: 's', type: 'string', config: { format: 'date' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'values on a string', name: 's', type: 'string', config: { values: ['a'] }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'targetClass on a string', name: 's', type: 'string', config: { targetClass: 'Thing' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'min on a boolean', name: 'b', type: 'boolean', config: { min: 0 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'a key that is no config key', name: 's', type: 'string', config: { colour: 'red' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'min above max', name: 'n', type: 'integer', config: { min: 5, max: 4 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'decimal min above max', name: 'd', type: 'decimal', config: { min: 1.5, max: 1.25 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'fractional integer bound', name: 'n', type: 'integer', config: { max: 4.5 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'maxLength 0', name: 's', type: 'string', config: { maxLength: 0 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'negative precision', name: 'd', type: 'decimal', config: { precision: -1 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'empty date format', name: 'd', type: 'date', config: { format: ' ' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'mandatory that is not a boolean', name: 's', type: 'string', config: { mandatory: 'yes' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  ...['1abc', 'has-dash', 'has space', 'é', 'a'.repeat(65)].map((name) => ({ label: `name ${JSON.stringify(name.slice(0, 12))}`, name, type: 'string', code: 'DS_ATTRIBUTE_NAME_INVALID' as const })),
  ...['_id', '_rev', '~class', '~createTimestamp', '~updateTimestamp', 'active', '~scope'].map((name) => ({ label: `system field ${name}`, name, type: 'string', code: 'DS_ATTRIBUTE_NAME_INVALID' as const })),
  { label: 'integer default that is text', name: 'n', type: 'integer', config: { defaultValue: 'one' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'integer default above max', name: 'n', type: 'integer', config: { max: 3, defaultValue: 4 }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'enum default not in values', name: 'e', type: 'enum', config: { values: ['a', 'b'], defaultValue: 'c' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'string default too long', name: 's', type: 'string', config: { maxLength: 2, defaultValue: 'abc' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'date default that does not exist', name: 'd', type: 'date', config: { defaultValue: '2023-02-30' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'scalar default of an array', name: 's', type: 'string', config: { isArray: true, defaultValue: 'a' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'foreign_key default naming no document', name: 'fk', type: 'foreign_key', config: { targetClass: 'Thing', defaultValue: 'Thing-none' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
];

/** defaultValue checks: the validation plugin's `defaultValue` tap refuses what a document could not hold. */
const defaultCases = schemaCases.filter((c) => c.code === 'DS_ATTRIBUTE_DEFAULT_INVALID');

async function withThing() {
  const stack = await memoryStack();
  const cls = await Class.create(stack, 'Thing', 'class', '', { title: { type: 'string' } });
  return { stack, cls };
}

describe('schema refusals', () => {
  it.each(defaultCases)('Attribute.create refuses $label ($code) and leaves the class unchanged', async ({ name, type, config = {}, code }) => {
    const { cls } = await withThing();
    await refusedAttribute(cls, name, type, config, code);
  });

  it.each(defaultCases)('Class.create refuses $label ($code) and stores no class', async ({ name, type, config = {}, code }) => {
    const { stack } = await withThing();
    await refusedClass(stack, 'Fresh', { ok: { type: 'string' }, [name]: { type, ...config } }, code, name);
  });

  it('the accepted counterparts of the refusals go through (the checks are not blanket refusals)', async () => {
    const { stack, cls } = await withThing();
    await Attribute.create(cls, 'e', 'enum', '', { values: ['a', 'b'], defaultValue: 'b' });
    await Attribute.create(cls, 'fk', 'foreign_key', '', { targetClass: 'Thing' });
    await Class.create(stack, 'Owner', 'class');
    await Domain.create(stack, null, 'D', 'domain', '1:N', 'Owner', 'Thing');
    await Attribute.create(cls, 'r', 'reference', '', { domain: 'D' });
    await Attribute.create(cls, 'n', 'integer', '', { min: 4, max: 4, defaultValue: 4 });
    await Attribute.create(cls, 'd', 'date', '', { format: 'DD/MM/YYYY', defaultValue: '29/02/2024' });
    await Attribute.create(cls, 'Name_2', 'string', '', { maxLength: 64, mandatory: true });
    const stored = (await classDoc(stack, 'Thing')) as unknown as { schema: Record<string, unknown> };
    expect(Object.keys(stored.schema)).toEqual(['title', 'e', 'fk', 'r', 'n', 'd', 'Name_2']);
    expect(stored.schema.e).toEqual({ name: 'e', type: 'enum', description: '', values: [{ value: 'a' }, { value: 'b' }], defaultValue: 'b' });
    // the specification's form, { value } objects, is accepted and stored as given
    await Attribute.create(cls, 'level', 'enum', '', { values: [{ value: 'low' }, { value: 'high' }] });
    expect((await classDoc(stack, 'Thing') as unknown as { schema: Record<string, { values?: unknown }> }).schema.level.values).toEqual([{ value: 'low' }, { value: 'high' }]);
    await stack.createDoc({ '~class': 'Thing', title: 't', Name_2: 'n', level: 'high' });
    const other = await Class.create(stack, 'Other', 'class', '', { self: { type: 'foreign_key', targetClass: 'Other' }, k: { type: 'string', primaryKey: true } });
    expect(other.model.schema.k).toMatchObject({ primaryKey: true, mandatory: true });
  });
});

describe('refusals that depend on existing documents', () => {
  async function withDocs() {
    const t = await withThing();
    const docs = await t.stack.createDocs([{ '~class': 'Thing', title: 'a' }, { '~class': 'Thing', title: 'b' }]);
    return { ...t, docs };
  }

  it('a mandatory attribute without defaultValue is refused once the class has documents', async () => {
    const t = await withDocs();
    const before = await t.stack.findDocuments('Thing');
    await refusedAttribute(t.cls, 'req', 'string', { mandatory: true }, 'DS_ATTRIBUTE_MANDATORY_NEEDS_DEFAULT');
    expect(await t.stack.findDocuments('Thing')).toEqual(before);
    // with a default it is accepted and stamped; on an empty class no default is needed
    await Attribute.create(t.cls, 'req', 'string', '', { mandatory: true, defaultValue: 'r' });
    expect((await t.stack.findDocuments('Thing')).map((d) => d.req)).toEqual(['r', 'r']);
    const empty = await Class.create(t.stack, 'Empty', 'class', '', {});
    await Attribute.create(empty, 'req', 'string', '', { mandatory: true });
    await expectRefused(t.stack.createDoc({ '~class': 'Empty' }), 'DS_VALIDATION_MANDATORY', 'req');
  });

  it('a refused defaultValue stamps nothing onto the existing documents', async () => {
    const t = await withDocs();
    const before = await t.stack.findDocuments('Thing');
    await refusedAttribute(t.cls, 'n', 'integer', { defaultValue: 1.5 }, 'DS_ATTRIBUTE_DEFAULT_INVALID');
    await refusedAttribute(t.cls, 'fk', 'foreign_key', { targetClass: 'Thing', defaultValue: 'Thing-none' }, 'DS_ATTRIBUTE_DEFAULT_INVALID');
    expect(await t.stack.findDocuments('Thing')).toEqual(before);
  });
});

describe('stamping a defaultValue onto existing documents', () => {

  it('a Date defaultValue is stored in the class document as text in the format of the attribute', async () => {
    const { stack, cls } = await withThing();
    await stack.createDoc({ '~class': 'Thing', title: 'old' });
    await Attribute.create(cls, 'due', 'date', '', { format: 'date', defaultValue: new Date(Date.UTC(2024, 0, 5, 12)) as unknown as string });
    const stored = (await classDoc(stack, 'Thing')) as unknown as { schema: Record<string, { defaultValue?: unknown }> };
    expect(stored.schema.due.defaultValue).toBe('2024-01-05');
    expect((await stack.findDocuments('Thing')).map((d) => d.due)).toEqual(['2024-01-05']);
    stack.classCache.invalidate('Thing'); // as after a reopen: the model comes from storage
    expect((await stack.createDoc({ '~class': 'Thing', title: 'new' })).due).toBe('2024-01-05');
  });
});

describe('the validator follows a new attribute at once', () => {
  it('a document using the attribute is accepted right after, a wrong type refused', async () => {
    const { stack, cls } = await withThing();
    const count = async () => (await stack.findDocuments('Thing')).length;
    await expectRefused(stack.createDoc({ '~class': 'Thing', rank: 2 }), 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', 'rank');

    const model = await Attribute.create(cls, 'rank', 'integer', 'a rank', { min: 1 });
    expect(model).toEqual({ name: 'rank', type: 'integer', description: 'a rank', min: 1 });

    const doc = await stack.createDoc({ '~class': 'Thing', rank: 2 });
    expect(await stack.getDocument(doc._id)).toMatchObject({ rank: 2 });
    await expectRefused(stack.createDoc({ '~class': 'Thing', rank: 'two' }), 'DS_VALIDATION_TYPE', 'rank');
    await expectRefused(stack.createDoc({ '~class': 'Thing', rank: 0 }), 'DS_VALIDATION_RANGE', 'rank');
    await expectRefused(stack.updateDoc(doc._id, { rank: 1.5 }), 'DS_VALIDATION_INTEGER', 'rank');
    expect(await count()).toBe(1);
  });

  it('also when the attribute is added through another Class object of the same class', async () => {
    const { stack } = await withThing();
    const snapshot = await stack.getClassSnapshot('Thing');
    await Attribute.create(snapshot, 'seen', 'boolean');
    await stack.createDoc({ '~class': 'Thing', seen: true });
    await expectRefused(stack.createDoc({ '~class': 'Thing', seen: 'yes' }), 'DS_VALIDATION_TYPE', 'seen');
    expect((await stack.getClass('Thing', true)).model.schema.seen).toEqual({ name: 'seen', type: 'boolean' });
    expect(await stack.findDocuments('Thing')).toHaveLength(1);
  });
});
