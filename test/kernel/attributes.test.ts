/**
 * The attribute model rules (kernel/model/attribute-rules.ts, attribute.ts, class.ts):
 * schema refusals with their codes through both Attribute.create and Class.create, the
 * refusals that depend on existing documents, and defaultValue stamping.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, DocstackError } from '../../index.js';
import { classDoc, refusedAttribute, refusedClass, schemaCases } from '../helpers/attribute-cases.js';
import { kernelStack } from '../helpers/stack.js';


/**
 * The refusals the kernel makes itself; defaultValue checks are the validation plugin's
 * (test/plugins/validation), the rules of plugin-defined types and keys their plugins'
 * (test/plugins/attribute-types.test.ts).
 */
const kernelCases = schemaCases.filter((c) => c.code !== 'DS_ATTRIBUTE_DEFAULT_INVALID' && c.plugin === undefined);

async function withThing() {
  const stack = await kernelStack();
  const cls = await Class.create(stack, 'Thing', 'class', '', { title: { type: 'string' } });
  return { stack, cls };
}

describe('schema refusals', () => {
  it.each(kernelCases)('Attribute.create refuses $label ($code) and leaves the class unchanged', async ({ name, type, config = {}, code }) => {
    const { cls } = await withThing();
    await refusedAttribute(cls, name, type, config, code);
  });

  it.each(kernelCases)('Class.create refuses $label ($code) and stores no class', async ({ name, type, config = {}, code }) => {
    const { stack } = await withThing();
    await refusedClass(stack, 'Fresh', { ok: { type: 'string' }, [name]: { type, ...config } }, code, name);
  });

  it('a simple class keeps no primary key (DS_ATTRIBUTE_PRIMARY_KEY); types and keys no plugin defined are refused', async () => {
    const { stack, cls } = await withThing();
    const plain = await Class.create(stack, 'Plain', 'class', '', { title: { type: 'string' } }, { simple: true });
    await refusedAttribute(plain, 'key', 'string', { primaryKey: true }, 'DS_ATTRIBUTE_PRIMARY_KEY');
    // with no plugin, `reference` and `encrypted` are not part of the model at all
    await refusedAttribute(cls, 'r', 'reference', { domain: 'D' }, 'DS_ATTRIBUTE_TYPE_UNKNOWN');
    const err = await refusedAttribute(cls, 'secret', 'string', { encrypted: true }, 'DS_ATTRIBUTE_CONFIG_INVALID');
    expect(err.message).toContain('not an attribute config key on this stack');
  });

  it('a duplicate attribute is DS_ATTRIBUTE_EXISTS', async () => {
    const { stack, cls } = await withThing();
    await refusedAttribute(cls, 'title', 'integer', {}, 'DS_ATTRIBUTE_EXISTS');
    const twice = [
      { name: 'a', type: 'string' },
      { name: 'a', type: 'integer' },
    ];
    await refusedClass(stack, 'Twice', twice, 'DS_ATTRIBUTE_EXISTS', 'a');
  });
});

describe('refusals that depend on existing documents', () => {
  async function withDocs() {
    const t = await withThing();
    const docs = await t.stack.createDocs([{ '~class': 'Thing', title: 'a' }, { '~class': 'Thing', title: 'b' }]);
    return { ...t, docs };
  }

  it('a primary key cannot be added to a class with documents', async () => {
    const t = await withDocs();
    await refusedAttribute(t.cls, 'code', 'string', { primaryKey: true }, 'DS_ATTRIBUTE_PRIMARY_KEY');
    await refusedAttribute(t.cls, 'code', 'string', { primaryKey: true, defaultValue: 'x' }, 'DS_ATTRIBUTE_PRIMARY_KEY');
    const empty = await Class.create(t.stack, 'Empty', 'class', '', {});
    await Attribute.create(empty, 'code', 'string', '', { primaryKey: true });
    expect((await t.stack.requireClass('Empty')).schema.code).toMatchObject({ primaryKey: true, mandatory: true });
  });

  it('an Attribute.create that fails while stamping leaves the class document unchanged', async () => {
    // a document that the tightened class no longer accepts cannot take the default
    const t = await withDocs();
    await t.cls.saveModel((model) => {
      model.schema.req = { name: 'req', type: 'string', mandatory: true }; // bypasses the rules on purpose
      return model;
    });
    const before = await classDoc(t.stack, 'Thing');
    const outcome = await Attribute.create(t.cls, 'flag', 'boolean', '', { defaultValue: true }).then(
      () => 'created',
      (err: unknown) => err,
    );
    // either outcome is acceptable; a refusal must not leave the attribute half-added
    if (outcome !== 'created') {
      expect(outcome).toBeInstanceOf(DocstackError);
      expect(await classDoc(t.stack, 'Thing')).toEqual(before);
      expect((await t.stack.findDocuments('Thing')).some((d) => 'flag' in d)).toBe(false);
    } else {
      expect((await t.stack.findDocuments('Thing')).every((d) => d.flag === true)).toBe(true);
    }
  });
});

describe('stamping a defaultValue onto existing documents', () => {
  it('stamps every active document of the class, in batches (> 500 documents)', async () => {
    const { stack, cls } = await withThing();
    await Class.create(stack, 'Other', 'class', '', { title: { type: 'string' } });
    const total = 1203;
    const docs = await stack.createDocs(Array.from({ length: total }, (_, i) => ({ '~class': 'Thing', title: `t${i}` })));
    await stack.createDoc({ '~class': 'Other', title: 'other' });
    await stack.deleteDocument(docs[7]._id);

    await Attribute.create(cls, 'status', 'enum', '', { values: ['new', 'old'], defaultValue: 'new' });

    const active = await stack.findDocuments('Thing');
    expect(active).toHaveLength(total - 1);
    expect(active.filter((d) => d.status !== 'new')).toEqual([]);
    expect(active.every((d) => typeof d['~updateTimestamp'] === 'string')).toBe(true);
    const inactive = (await stack.getDocument(docs[7]._id, { includeInactive: true }))!;
    expect(inactive).not.toHaveProperty('status');
    expect(await stack.findDocuments('Other')).toEqual([expect.not.objectContaining({ status: expect.anything() })]);
  });
});

