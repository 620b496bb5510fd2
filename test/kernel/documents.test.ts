import { beforeEach, describe, expect, it } from 'vitest';
import { Class, definePlugin, DocstackError, type ClientStack } from '../../index.js';
import { kernelStack, refusal } from '../helpers/stack.js';

let stack: ClientStack;
const count = async (className = 'Task', includeInactive = false) => (await stack.findDocuments(className, {}, { includeInactive })).length;

beforeEach(async () => {
  stack = await kernelStack();
  await Class.create(stack, 'Task', 'class', 'things to do', {
    title: { type: 'string', mandatory: true },
    done: { type: 'boolean', defaultValue: false },
    points: { type: 'integer' },
  });
});

describe('createDoc', () => {
  it('stamps the system fields', async () => {
    const before = Date.now();
    const doc = await stack.createDoc({ '~class': 'Task', title: 'write tests' });
    expect(doc._id).toMatch(/^Task-[0-9a-f-]{36}$/);
    expect(doc._rev).toMatch(/^1-/);
    expect(doc['~class']).toBe('Task');
    expect(doc.active).toBe(true);
    expect(Date.parse(doc['~createTimestamp'])).toBeGreaterThanOrEqual(before - 5);
    expect(doc['~updateTimestamp']).toBeUndefined();
    // no plugin: no default stamped (the validation plugin's beforeValidate does that)
    expect(await stack.getDocument(doc._id)).toMatchObject({ title: 'write tests', active: true });
    expect(await stack.getDocument(doc._id)).not.toHaveProperty('done');
  });

  it('keeps a given id', async () => {
    const doc = await stack.createDoc({ '~class': 'Task', title: 'x' }, { id: 'Task-fixed' });
    expect(doc._id).toBe('Task-fixed');
    expect((await stack.getDocument('Task-fixed'))?.title).toBe('x');
  });

  it('refuses a given system id, and an id already taken — storing nothing (other ids outside the range: explicit-ids.test.ts)', async () => {
    const wrong = await refusal(stack.createDoc({ '~class': 'Task', title: 'x' }, { id: '~Other-1' }));
    expect(wrong.code).toBe('DS_DOC_ID_RESERVED');
    await stack.createDoc({ '~class': 'Task', title: 'first' }, { id: 'Task-1' });
    const taken = await refusal(stack.createDocs([{ '~class': 'Task', title: 'a' }, { '~class': 'Task', title: 'b', _id: 'Task-1' }]));
    expect(taken.code).toBe('DS_DOC_EXISTS');
    expect(await count()).toBe(1);
    expect((await stack.getDocument('Task-1'))?.title).toBe('first');
  });

  it('refuses documents without ~class, of unknown classes, or setting engine fields', async () => {
    expect((await refusal(stack.createDoc({ title: 'x' } as never))).code).toBe('DS_CLASS_MISSING');
    expect((await refusal(stack.createDoc({ '~class': 'Nope' }))).code).toBe('DS_CLASS_NOT_FOUND');
    expect((await refusal(stack.createDoc({ '~class': 'class', name: 'Sneaky' }))).code).toBe('DS_CLASS_INVALID');
    const rev = await refusal(stack.createDoc({ '~class': 'Task', title: 'x', _rev: '1-abc' }));
    expect(rev.code).toBe('DS_DOC_PROTECTED_FIELD');
    expect(rev.path).toBe('_rev');
    expect((await refusal(stack.createDoc({ '~class': 'Task', title: 'x', active: false }))).code).toBe('DS_DOC_PROTECTED_FIELD');
    expect((await refusal(stack.createDoc([] as never))).code).toBe('DS_DOC_INVALID');
    expect(await count()).toBe(0);
  });

  it('createDocs is all or nothing', async () => {
    // a plugin that refuses a Task without title: the kernel must then store none of the batch
    const strict = definePlugin({
      name: 'strict',
      setup({ hooks }) {
        hooks.validate.tap('strict', (draft) => {
          if (draft['~class'] === 'Task' && draft.title === undefined) throw new DocstackError('DS_VALIDATION_MANDATORY', 'title is mandatory', { path: 'title' });
        });
      },
    });
    stack = await kernelStack({ plugins: [strict] });
    await Class.create(stack, 'Task', 'class', '', { title: { type: 'string', mandatory: true }, points: { type: 'integer' } });
    const err = await refusal(
      stack.createDocs([
        { '~class': 'Task', title: 'ok 1' },
        { '~class': 'Task', title: 'ok 2' },
        { '~class': 'Task', points: 3 },
      ]),
    );
    expect(err).toBeInstanceOf(DocstackError);
    expect(err.code).toBe('DS_VALIDATION_MANDATORY');
    expect(err.path).toBe('title');
    expect(await count()).toBe(0);
  });
});

describe('updateDoc and deleteDocument', () => {
  it('merges changes, stamps ~updateTimestamp and keeps ~createTimestamp', async () => {
    const doc = await stack.createDoc({ '~class': 'Task', title: 'old', points: 1 });
    const updated = await stack.updateDoc(doc._id, { title: 'new' });
    expect(updated).toMatchObject({ title: 'new', points: 1, '~createTimestamp': doc['~createTimestamp'] });
    expect(updated['~updateTimestamp']).toEqual(expect.any(String));
    expect(updated._rev).toMatch(/^2-/);
  });

  it('refuses changing system fields and a stale _rev, leaving the document as it was', async () => {
    const doc = await stack.createDoc({ '~class': 'Task', title: 'keep' });
    for (const change of [{ _id: 'Task-other' }, { '~class': 'Other' }, { active: false }, { '~createTimestamp': 'x' }]) {
      expect((await refusal(stack.updateDoc(doc._id, change))).code).toBe('DS_DOC_PROTECTED_FIELD');
    }
    const stale = await refusal(stack.updateDoc(doc._id, { _rev: '1-0000', title: 'lost' }));
    expect(stale.code).toBe('DS_DOC_CONFLICT');
    const stored = await stack.getDocument(doc._id);
    expect(stored).toMatchObject({ title: 'keep', _rev: doc._rev });
    // the current _rev is accepted: optimistic concurrency for callers who want it
    expect((await stack.updateDoc(doc._id, { _rev: doc._rev, title: 'changed' })).title).toBe('changed');
  });

  it('soft-deletes: reads skip the document unless includeInactive', async () => {
    const a = await stack.createDoc({ '~class': 'Task', title: 'a' });
    await stack.createDoc({ '~class': 'Task', title: 'b' });
    const deleted = await stack.deleteDocument(a._id);
    expect(deleted.active).toBe(false);
    expect(await stack.getDocument(a._id)).toBeNull();
    expect((await stack.getDocument(a._id, { includeInactive: true }))?.active).toBe(false);
    expect(await count()).toBe(1);
    expect(await count('Task', true)).toBe(2);
    expect((await refusal(stack.deleteDocument(a._id))).code).toBe('DS_DOC_NOT_FOUND');
    expect((await refusal(stack.updateDoc(a._id, { title: 'zombie' }))).code).toBe('DS_DOC_NOT_FOUND');
    expect(await stack.getDocument('Task-missing')).toBeNull();
  });
});

describe('findDocuments', () => {
  beforeEach(async () => {
    await stack.createDocs(
      Array.from({ length: 1234 }, (_, i) => ({ '~class': 'Task', title: `task ${i}`, points: i % 10, done: i % 2 === 0 })),
    );
  });

  it('scans every page of a class larger than one scan page', async () => {
    expect(await count()).toBe(1234);
  });

  it('matches Mango selectors, projects fields, skips and limits', async () => {
    const sevens = await stack.findDocuments('Task', { points: 7 });
    expect(sevens).toHaveLength(123);
    const slice = await stack.findDocuments('Task', { points: { $gte: 8 }, done: true }, { fields: ['points'], skip: 5, limit: 10 });
    expect(slice).toHaveLength(10);
    for (const doc of slice) {
      expect(Object.keys(doc).sort()).toEqual(['_id', 'points']);
      expect(doc.points).toBe(8);
    }
    const all = await stack.findDocuments('Task', { points: { $gte: 8 }, done: true });
    expect(slice.map((d) => d._id)).toEqual(all.slice(5, 15).map((d) => d._id));
  });

  it('refuses bad options and selectors', async () => {
    expect((await refusal(stack.findDocuments('Task', {}, { limit: -1 }))).code).toBe('DS_QUERY_INVALID');
    expect((await refusal(stack.findDocuments('Task', {}, { skip: 1.5 }))).code).toBe('DS_QUERY_INVALID');
    expect((await refusal(stack.findDocuments('Task', { points: { $bogus: 1 } }))).code).toBe('DS_QUERY_INVALID');
    expect((await refusal(stack.findDocuments('Nope'))).code).toBe('DS_CLASS_NOT_FOUND');
  });

  it('lists class documents through the meta-class', async () => {
    const classes = await stack.findDocuments('class', { name: 'Task' });
    expect(classes).toHaveLength(1);
    expect(classes[0]).toMatchObject({ _id: 'Task', '~class': 'class' });
  });
});
