/**
 * The validation plugin's document rules: mandatory, null clearing, defaults, unknown
 * attributes, updates validated like creates, and deletes never blocked.
 */
import { describe, expect, it } from 'vitest';
import { Class, type ErrorCode } from '../../../index.js';
import { expectRefused, memoryStack } from '../../helpers/stack.js';

type Attrs = Record<string, unknown>;

const taskSchema = {
  title: { type: 'string', mandatory: true, maxLength: 20 },
  note: { type: 'string' },
  priority: { type: 'integer', min: 1, max: 5, defaultValue: 3 },
  status: { type: 'enum', values: ['open', 'done'], defaultValue: 'open', mandatory: true },
  urgent: { type: 'boolean', defaultValue: false },
  tags: { type: 'string', isArray: true, defaultValue: ['inbox'] },
  extra: { type: 'object', defaultValue: { source: 'default' } },
  owner: { type: 'foreign_key', targetClass: 'Person' },
};

async function tasks() {
  const stack = await memoryStack();
  await Class.create(stack, 'Person', 'class', '', { name: { type: 'string' } });
  await Class.create(stack, 'Task', 'class', '', taskSchema);
  const count = async () => (await stack.findDocuments('Task', undefined, { includeInactive: true })).length;
  const create = (attrs: Attrs) => stack.createDoc({ '~class': 'Task', ...attrs });
  const refusedCreate = async (attrs: Attrs, code: ErrorCode, path?: string) => {
    const before = await count();
    const err = await expectRefused(create(attrs), code, path);
    expect(await count()).toBe(before);
    return err;
  };
  /** the update is refused, and the stored document is exactly what it was */
  const refusedUpdate = async (id: string, changes: Attrs, code: ErrorCode, path?: string) => {
    const before = await stack.storage.get(id);
    const err = await expectRefused(stack.updateDoc(id, changes), code, path);
    expect(await stack.storage.get(id)).toEqual(before);
    return err;
  };
  return { stack, count, create, refusedCreate, refusedUpdate };
}

describe('mandatory', () => {
  it('refuses a create that leaves a mandatory attribute out, or gives null', async () => {
    const t = await tasks();
    await t.refusedCreate({ note: 'no title' }, 'DS_VALIDATION_MANDATORY', 'title');
    await t.refusedCreate({ title: null }, 'DS_VALIDATION_MANDATORY', 'title');
    await t.refusedCreate({ title: undefined }, 'DS_VALIDATION_MANDATORY', 'title');
    await t.create({ title: 'ok' });
    expect(await t.count()).toBe(1);
  });

  it('a null on create wins over the defaultValue of a mandatory attribute', async () => {
    const t = await tasks();
    await t.refusedCreate({ title: 'x', status: null }, 'DS_VALIDATION_MANDATORY', 'status');
  });

  it('refuses an update that clears a mandatory attribute with null', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 'keep me' });
    await t.refusedUpdate(doc._id, { title: null }, 'DS_VALIDATION_MANDATORY', 'title');
    await t.refusedUpdate(doc._id, { status: null, note: 'also changed' }, 'DS_VALIDATION_MANDATORY', 'status');
    expect((await t.stack.getDocument(doc._id))!.title).toBe('keep me');
  });
});

describe('null clears a non-mandatory attribute', () => {
  it('on update: the key disappears from the stored document', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 't', note: 'to be cleared', priority: 4 });
    const updated = await t.stack.updateDoc(doc._id, { note: null, priority: null });
    expect(updated).not.toHaveProperty('note');
    expect(updated).not.toHaveProperty('priority');
    const raw = (await t.stack.storage.get(doc._id)) as Attrs;
    expect(Object.keys(raw)).not.toContain('note');
    expect(Object.keys(raw)).not.toContain('priority'); // defaults are for new documents only
    expect(raw.title).toBe('t');
  });

  it('on create: a null attribute is simply not stored', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 't', note: null, owner: null });
    const raw = (await t.stack.storage.get(doc._id)) as Attrs;
    expect(Object.keys(raw)).not.toContain('note');
    expect(Object.keys(raw)).not.toContain('owner');
  });
});

describe('defaultValue', () => {
  it('is stamped on create when the attribute is left out (falsy defaults included)', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 't' });
    const expected = { priority: 3, status: 'open', urgent: false, tags: ['inbox'], extra: { source: 'default' } };
    expect(doc).toMatchObject(expected);
    expect(await t.stack.storage.get(doc._id)).toMatchObject(expected);
  });

  it('never overrides a value the caller gave', async () => {
    const t = await tasks();
    const given = { title: 't', priority: 1, status: 'done', urgent: true, tags: [], extra: { mine: 1 } };
    const doc = await t.create(given);
    expect(await t.stack.getDocument(doc._id)).toMatchObject(given);
    expect((await t.stack.getDocument(doc._id))!.extra).toEqual({ mine: 1 });
  });

  it('gives every document its own copy of an object default', async () => {
    const t = await tasks();
    const [a, b] = await t.stack.createDocs([
      { '~class': 'Task', title: 'a' },
      { '~class': 'Task', title: 'b' },
    ]);
    (a.extra as Attrs).source = 'mutated';
    (a.tags as string[]).push('x');
    expect(b.extra).toEqual({ source: 'default' });
    expect(b.tags).toEqual(['inbox']);
    const c = await t.create({ title: 'c' });
    expect(c.extra).toEqual({ source: 'default' });
    expect(c.tags).toEqual(['inbox']);
  });
});

describe('unknown attributes', () => {
  it('are refused on create, with every unknown name in details.attributes', async () => {
    const t = await tasks();
    const err = await t.refusedCreate({ title: 't', colour: 'red', size: 3, note: 'known' }, 'DS_VALIDATION_UNKNOWN_ATTRIBUTE');
    expect(err.details?.attributes).toEqual(['colour', 'size']);
    expect(['colour', 'size']).toContain(err.path);
    expect(err.message).toContain('colour');
    expect(err.message).toContain('size');
  });

  it('are refused on update too', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 't' });
    const err = await t.refusedUpdate(doc._id, { note: 'fine', bogus: true }, 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', 'bogus');
    expect(err.details?.attributes).toEqual(['bogus']);
  });
});

describe('updates are validated like creates', () => {
  it('refuses an update that breaks a rule and leaves the stored document unchanged', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 't', note: 'n', priority: 2 });
    await t.refusedUpdate(doc._id, { priority: 9 }, 'DS_VALIDATION_RANGE', 'priority');
    await t.refusedUpdate(doc._id, { priority: 2.5 }, 'DS_VALIDATION_INTEGER', 'priority');
    await t.refusedUpdate(doc._id, { title: 'x'.repeat(21) }, 'DS_VALIDATION_MAX_LENGTH', 'title');
    await t.refusedUpdate(doc._id, { status: 'closed' }, 'DS_VALIDATION_ENUM', 'status');
    await t.refusedUpdate(doc._id, { tags: 'one' }, 'DS_VALIDATION_ARRAY', 'tags');
    await t.refusedUpdate(doc._id, { tags: ['a', 'b', 7] }, 'DS_VALIDATION_TYPE', 'tags[2]');
    await t.refusedUpdate(doc._id, { owner: 'Person-nobody' }, 'DS_VALIDATION_FOREIGN_KEY', 'owner');
    // a rule broken next to a valid change refuses the valid change too
    await t.refusedUpdate(doc._id, { note: 'changed', urgent: 'yes' }, 'DS_VALIDATION_TYPE', 'urgent');
    expect(await t.stack.getDocument(doc._id)).toMatchObject({ note: 'n', priority: 2 });
  });

  it('accepts a valid update and stores it', async () => {
    const t = await tasks();
    const person = await t.stack.createDoc({ '~class': 'Person', name: 'Ann' });
    const doc = await t.create({ title: 't' });
    await t.stack.updateDoc(doc._id, { priority: 5, owner: person._id, tags: ['a', 'b'] });
    expect(await t.stack.getDocument(doc._id)).toMatchObject({ priority: 5, owner: person._id, tags: ['a', 'b'] });
  });

  it('checks only the foreign keys an update introduces: a kept one whose target has gone does not freeze the document', async () => {
    const t = await tasks();
    const person = await t.stack.createDoc({ '~class': 'Person', name: 'Ann' });
    const doc = await t.create({ title: 't', owner: person._id });
    await t.stack.deleteDocument(person._id);
    await t.stack.updateDoc(doc._id, { note: 'anything' });
    expect(await t.stack.getDocument(doc._id)).toMatchObject({ note: 'anything', owner: person._id });
    // moving the reference to another gone target is refused
    const other = await t.stack.createDoc({ '~class': 'Person', name: 'Bob' });
    await t.stack.deleteDocument(other._id);
    await t.refusedUpdate(doc._id, { owner: other._id }, 'DS_VALIDATION_FOREIGN_KEY', 'owner');
    await t.stack.updateDoc(doc._id, { owner: null });
    expect(await t.stack.getDocument(doc._id)).not.toHaveProperty('owner');
  });
});

describe('deletes are never blocked by validation', () => {
  it('deletes a document that no longer satisfies its class (schema tightened afterwards)', async () => {
    const t = await tasks();
    const doc = await t.create({ title: 'a long enough title', note: 'n' });
    const cls = await t.stack.getClass('Task');
    await cls.saveModel((model) => {
      model.schema.title = { ...model.schema.title, maxLength: 3 };
      model.schema.required = { name: 'required', type: 'string', mandatory: true };
      delete model.schema.note; // the stored `note` is now an unknown attribute
      return model;
    });
    await expectRefused(t.stack.updateDoc(doc._id, { priority: 4 }), 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', 'note');
    const deleted = await t.stack.deleteDocument(doc._id);
    expect(deleted.active).toBe(false);
    expect(await t.stack.getDocument(doc._id)).toBeNull();
    expect(await t.stack.getDocument(doc._id, { includeInactive: true })).toMatchObject({ active: false, title: 'a long enough title' });
  });

  it('deletes a document whose foreign key names a deleted target, and a target still referenced', async () => {
    const t = await tasks();
    const [ann, bob] = await t.stack.createDocs([
      { '~class': 'Person', name: 'Ann' },
      { '~class': 'Person', name: 'Bob' },
    ]);
    const a = await t.create({ title: 'a', owner: ann._id });
    const b = await t.create({ title: 'b', owner: bob._id });
    await t.stack.deleteDocument(ann._id);
    await t.stack.deleteDocument(a._id);
    await t.stack.deleteDocument(bob._id); // still referenced by b
    expect(await t.stack.getDocument(a._id)).toBeNull();
    expect(await t.stack.getDocument(bob._id)).toBeNull();
    expect(await t.stack.getDocument(b._id)).toMatchObject({ owner: bob._id });
    expect(await t.stack.findDocuments('Task')).toHaveLength(1);
  });
});
