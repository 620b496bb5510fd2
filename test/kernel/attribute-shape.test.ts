import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, type ClientStack } from '../../index.js';
import { toClassDocument, toClassModel, toFlatAttribute, toStoredAttribute } from '../../kit/index.js';
import { attributeModelPatch } from '../../engine/system-patches/0002-attribute-model.js';
import { kernelStack, rawDb, tempDir, track, uniqueName } from '../helpers/stack.js';
import { expectRefused } from '../helpers/refusals.js';

/** A class document as an older docstack stored it: configuration flat beside name and type. */
const flatShelf = (now: string) => ({
  _id: 'Shelf',
  '~class': 'class',
  '~createTimestamp': now,
  '~updateTimestamp': now,
  active: true,
  name: 'Shelf',
  description: 'a shelf',
  parentClass: null,
  schema: {
    label: { name: 'label', type: 'string', maxLength: 40, mandatory: true },
    color: { name: 'color', type: 'enum', values: [{ value: 'red' }, { value: 'oak' }], description: 'finish' },
    note: { name: 'note', type: 'string' },
  },
  triggers: [],
  simple: false,
  ephemeral: false,
  tenants: [],
  defaultScope: null,
});

const specShelf = (now: string) => ({
  ...flatShelf(now),
  schema: {
    label: { name: 'label', type: 'string', config: { maxLength: 40, mandatory: true } },
    color: { name: 'color', type: 'enum', config: { values: [{ value: 'red' }, { value: 'oak' }] }, description: 'finish' },
    note: { name: 'note', type: 'string', config: {} },
  },
});

const NOW = '2026-01-01T00:00:00.000Z';
const HASH = 'a'.repeat(32);
/** A peer's first revision of a document, as replication carries it. */
/** One document's winning revision, with its history, copied from a's store into b's as replication would (no ingest: raw). */
async function copyRevision(a: ClientStack, b: ClientStack, id: string): Promise<void> {
  const doc = await rawDb(a).get(id, { revs: true });
  await rawDb(b).bulkDocs([doc], { new_edits: false });
}
const fromPeer = <T extends object>(doc: T, hash = HASH) => ({ ...doc, _rev: `1-${hash}`, _revisions: { start: 1, ids: [hash] } });

describe('the two attribute shapes', () => {
  it('converts flat ↔ stored, config always present, description beside it', () => {
    expect(toStoredAttribute({ name: 'a', type: 'string', maxLength: 4, description: 'x' })).toEqual({ name: 'a', type: 'string', config: { maxLength: 4 }, description: 'x' });
    expect(toStoredAttribute({ name: 'b', type: 'object' })).toEqual({ name: 'b', type: 'object', config: {} });
    expect(toFlatAttribute({ name: 'a', type: 'string', config: { maxLength: 4 }, description: 'x' })).toEqual({ name: 'a', type: 'string', maxLength: 4, description: 'x' });
    const flat = { name: 'c', type: 'integer', min: 1 };
    expect(toFlatAttribute(flat)).toBe(flat);
    // a whole document: stored → model → stored is the identity
    const stored = specShelf(NOW);
    expect(toClassDocument(toClassModel(stored as never))).toEqual(stored);
    expect(toClassModel(flatShelf(NOW) as never)).toEqual(toClassModel(stored as never));
  });

  it('refuses a config that is not an object, holds an outer key, or repeats a key set beside it', () => {
    const cases: Record<string, unknown>[] = [
      { name: 'a', type: 'string', config: 'x' },
      { name: 'a', type: 'string', config: [] },
      { name: 'a', type: 'string', config: { type: 'integer' } },
      { name: 'a', type: 'string', config: { description: 'd' } },
      { name: 'a', type: 'string', maxLength: 3, config: { maxLength: 4 } },
    ];
    for (const input of cases) {
      expect(() => toFlatAttribute(input)).toThrow(expect.objectContaining({ code: 'DS_ATTRIBUTE_CONFIG_INVALID', path: 'a' }));
    }
  });
});

describe('Class.create and Attribute.create', () => {
  it('take the specification\'s attribute model and the flat one; the document is stored in the specification\'s shape', async () => {
    const stack = await kernelStack();
    const cls = await Class.create(stack, 'Shelf', 'class', 'a shelf', {
      label: { name: 'label', type: 'string', config: { maxLength: 40, mandatory: true }, description: 'front' },
      depth: { type: 'integer', max: 3 },
      tags: { type: 'string', config: {} },
    });
    expect(cls.model.schema.label).toEqual({ name: 'label', type: 'string', maxLength: 40, mandatory: true, description: 'front' });
    await Attribute.create(cls, 'slots', 'integer', 'how many', { min: 1 });
    const stored = (await stack.storage.get('Shelf')) as unknown as { schema: Record<string, unknown> };
    expect(stored.schema).toEqual({
      label: { name: 'label', type: 'string', config: { maxLength: 40, mandatory: true }, description: 'front' },
      depth: { name: 'depth', type: 'integer', config: { max: 3 } },
      tags: { name: 'tags', type: 'string', config: {} },
      slots: { name: 'slots', type: 'integer', config: { min: 1 }, description: 'how many' },
    });
    // read as a document, it is the stored shape; as a model, flat
    expect((await stack.getDocument('Shelf'))?.schema).toEqual(stored.schema);
    expect((await stack.findDocuments('class', { name: 'Shelf' }))[0].schema).toEqual(stored.schema);
    expect((await stack.requireClass('Shelf')).schema.slots).toEqual({ name: 'slots', type: 'integer', min: 1, description: 'how many' });
    await expectRefused(Class.create(stack, 'Bad', 'class', '', { a: { type: 'string', maxLength: 2, config: { maxLength: 3 } } }), 'DS_ATTRIBUTE_CONFIG_INVALID', 'a');
    expect(await stack.storage.get('Bad')).toBeNull();
  });
});

describe('a peer\'s class document, in either shape (stack.ingest)', () => {
  for (const [shape, make] of [['specification', specShelf], ['flat', flatShelf]] as const) {
    it(`in the ${shape} shape: accepted as it is, its class writable, never rewritten for its shape`, async () => {
      const stack = await kernelStack();
      const [result] = await stack.ingest([fromPeer(make(NOW))]);
      expect(result).toMatchObject({ ok: true, rev: `1-${HASH}` });
      expect((await stack.requireClass('Shelf')).schema.label).toEqual({ name: 'label', type: 'string', maxLength: 40, mandatory: true });
      const doc = await stack.createDoc({ '~class': 'Shelf', label: 'top', color: 'oak' });
      expect(doc.color).toBe('oak');
      const [theirs] = await stack.ingest([fromPeer({ _id: 'Shelf-1', '~class': 'Shelf', '~createTimestamp': NOW, active: true, label: 'low' }, 'b'.repeat(32))]);
      expect(theirs.ok).toBe(true);
      // stored as it came: same revision, same body
      const stored = await stack.storage.get('Shelf');
      expect(stored?._rev).toBe(`1-${HASH}`);
      expect(stored?.schema).toEqual(make(NOW).schema);
    });
  }

  it('refuses one whose config repeats a key set beside it (DS_ATTRIBUTE_CONFIG_INVALID), nothing stored', async () => {
    const stack = await kernelStack();
    const bad = specShelf(NOW);
    (bad.schema.label as Record<string, unknown>).maxLength = 10;
    const [result] = await stack.ingest([fromPeer(bad)]);
    expect(result).toMatchObject({ ok: false, code: 'DS_ATTRIBUTE_CONFIG_INVALID' });
    expect(await stack.storage.get('Shelf')).toBeNull();
  });
});

describe('system patch 0002-attribute-model', () => {
  it('rewrites the flat class documents of an existing store once, at open', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('migrate');
    const old = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    await old.storage.put(flatShelf(NOW));
    // as a store of the version before this patch: the record names 0001 only
    const record = (await old.storage.get<{ _id: string; applied: { id: string }[] }>('_local/~system-patches'))!;
    await old.storage.put({ ...record, applied: record.applied.filter((p) => p.id !== '0002-attribute-model') });
    await old.close();

    const reopened = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] }));
    const stored = await reopened.storage.get('Shelf');
    expect(stored?._rev).toMatch(/^2-/);
    expect(stored).toEqual({ ...specShelf(NOW), _rev: stored?._rev });
    expect(stored?.['~updateTimestamp']).toBe(NOW);
    expect((await reopened.requireClass('Shelf')).schema.color).toEqual({ name: 'color', type: 'enum', values: [{ value: 'red' }, { value: 'oak' }], description: 'finish' });
  });

  it('is deterministic: two devices migrating the same revision make the same one, and replicating leaves one leaf', async () => {
    const [a, b]: ClientStack[] = [await kernelStack(), await kernelStack()];
    await a.storage.put(flatShelf(NOW));
    await copyRevision(a, b, 'Shelf');
    for (const stack of [a, b]) await attributeModelPatch.apply({ storage: stack.storage, now: '2027-01-01T00:00:00.000Z' });
    const [ra, rb] = [await a.storage.get('Shelf'), await b.storage.get('Shelf')];
    expect(ra?._rev).toMatch(/^2-/);
    expect(rb?._rev).toBe(ra?._rev);
    await copyRevision(a, b, 'Shelf');
    await copyRevision(b, a, 'Shelf');
    for (const stack of [a, b]) {
      const doc = (await rawDb(stack).get('Shelf', { conflicts: true })) as { _rev: string; _conflicts?: string[] };
      expect(doc._rev).toBe(ra?._rev);
      expect(doc._conflicts).toBeUndefined();
    }
    // applied again (a replica that already has the result): nothing written
    await attributeModelPatch.apply({ storage: a.storage, now: NOW });
    expect((await a.storage.get('Shelf'))?._rev).toBe(ra?._rev);
  });
});
