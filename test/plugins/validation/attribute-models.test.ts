/**
 * Attribute models with the validation plugin loaded: defaultValue checks (its `defaultValue`
 * tap) through both Attribute.create and Class.create, stamping a default onto existing
 * documents, and the validator following a new attribute at once. The kernel's own refusals
 * are in test/kernel/attributes.test.ts, run with no plugin.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class } from '../../../index.js';
import { Domain } from '../../../plugins/domains/index.js';
import { classDoc, refusedAttribute, refusedClass, schemaCases } from '../../helpers/attribute-cases.js';
import { expectRefused, memoryStack } from '../../helpers/stack.js';


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
    expect(stored.schema.e).toEqual({ name: 'e', type: 'enum', description: '', config: { values: [{ value: 'a' }, { value: 'b' }], defaultValue: 'b' } });
    // the specification's form, { value } objects, is accepted and stored as given
    await Attribute.create(cls, 'level', 'enum', '', { values: [{ value: 'low' }, { value: 'high' }] });
    expect((await classDoc(stack, 'Thing') as unknown as { schema: Record<string, { config: { values?: unknown } }> }).schema.level.config.values).toEqual([{ value: 'low' }, { value: 'high' }]);
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
    const stored = (await classDoc(stack, 'Thing')) as unknown as { schema: Record<string, { config: { defaultValue?: unknown } }> };
    expect(stored.schema.due.config.defaultValue).toBe('2024-01-05');
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
