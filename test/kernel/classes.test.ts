import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, DocstackError } from '../../index.js';
import { validationPlugin } from '../../plugins/validation/index.js';
import { VERIFY_AFTER_MS } from '../../engine/class-cache.js';
import { ManualClock } from '../helpers/clock.js';
import { kernelStack, refusal, track, uniqueName, userClasses } from '../helpers/stack.js';

const until = async (check: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('Class.create', () => {
  it('writes the class document with every model field', async () => {
    const stack = await kernelStack();
    const cls = await Class.create(stack, 'Invoice', 'class', 'bills we send', { number: { type: 'integer', primaryKey: true } }, {
      defaultScope: 'finance',
      tenants: ['acme'],
    });
    const stored = (await stack.storage.get('Invoice')) as Record<string, unknown>;
    expect(stored).toMatchObject({
      _id: 'Invoice',
      '~class': 'class',
      name: 'Invoice',
      description: 'bills we send',
      parentClass: null,
      triggers: [],
      simple: false,
      ephemeral: false,
      tenants: ['acme'],
      defaultScope: 'finance',
      active: true,
    });
    // stored in the specification's attribute shape; the model in memory is flat
    expect((stored.schema as Record<string, unknown>).number).toEqual({ name: 'number', type: 'integer', config: { primaryKey: true, mandatory: true } });
    expect(cls.model.schema.number).toEqual({ name: 'number', type: 'integer', primaryKey: true, mandatory: true });
    expect(cls.model._rev).toBe(stored._rev);
  });

  it('Class.fetch is live by default (SPEC: "with a live subscription"); subscribe: false is a snapshot', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Gadget', 'class', '', { name: { type: 'string' } });
    const live = await Class.fetch(stack, 'Gadget');
    const snapshot = await Class.fetch(stack, 'Gadget', { subscribe: false });
    await Attribute.create(await Class.fetch(stack, 'Gadget'), 'color', 'string');
    expect(Object.keys(live.model.schema)).toContain('color');
    expect(Object.keys(snapshot.model.schema)).not.toContain('color');
  });

  it('refuses a taken name, bad names and a bad meta-class, writing nothing', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Thing', 'class');
    expect((await refusal(Class.create(stack, 'Thing', 'class'))).code).toBe('DS_CLASS_EXISTS');
    for (const name of ['', '1abc', 'has-dash', 'has space', 'class', 'domain', '~self', 'x'.repeat(65)]) {
      const err = await refusal(Class.create(stack, name, 'class'));
      expect(err).toBeInstanceOf(DocstackError);
      expect(err.code).toBe('DS_CLASS_INVALID');
    }
    expect((await refusal(Class.create(stack, 'Other', 'domain'))).code).toBe('DS_CLASS_INVALID');
    expect((await refusal(Class.create(stack, 'Child', 'class', '', {}, { parentClass: 'Missing' }))).code).toBe('DS_CLASS_NOT_FOUND');
    expect((await refusal(Class.create(stack, 'Bad', 'class', '', { n: { type: 'nope' } }))).code).toBe('DS_ATTRIBUTE_TYPE_UNKNOWN');
    expect(await userClasses(stack)).toEqual(['Thing', 'class']); // no domains plugin: no domain meta-class
  });
});

describe('class objects', () => {
  it('getClass shares one live object; getClassSnapshot and buildFromModel do not follow changes', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Thing', 'class');
    const live = await stack.getClass('Thing');
    expect(await stack.getClass('Thing')).toBe(live);
    const snapshot = await stack.getClassSnapshot('Thing');
    const built = Class.buildFromModel(stack, snapshot.model, { subscribe: false });
    await Attribute.create(live, 'size', 'integer');
    expect(Object.keys(live.model.schema)).toEqual(['size']);
    expect(Object.keys(snapshot.model.schema)).toEqual([]);
    expect(Object.keys(built.model.schema)).toEqual([]);
    expect(Object.keys((await stack.getClass('Thing', true)).model.schema)).toEqual(['size']);
    expect((await refusal(stack.getClass('Nope'))).code).toBe('DS_CLASS_NOT_FOUND');
  });

  // these two see the model each writer enforces through the validation plugin
  it('follows changes made by another writer of the same store and notifies document changes', async () => {
    const name = uniqueName('live');
    const mine = track(await createStack({ name, adapter: 'memory', plugins: [validationPlugin] }));
    const theirs = track(await createStack({ name, adapter: 'memory', plugins: [validationPlugin] }));
    await Class.create(mine, 'Note', 'class', '', { text: { type: 'string' } });
    const watched = await mine.getClass('Note');
    const models: string[][] = [];
    const changes: string[] = [];
    watched.on('model', (m) => models.push(Object.keys(m.schema)));
    watched.on('change', (c: { id: string }) => changes.push(c.id));

    const remote = await theirs.getClass('Note');
    await Attribute.create(remote, 'stars', 'integer', 'added elsewhere', { min: 0 });
    await until(() => 'stars' in watched.model.schema);
    expect(models.at(-1)).toEqual(['text', 'stars']);

    const doc = await theirs.createDoc({ '~class': 'Note', text: 'hi', stars: 2 });
    await until(() => changes.includes(doc._id));
    // the validator of the first stack follows too: the new attribute is enforced here
    expect((await refusal(mine.createDoc({ '~class': 'Note', stars: -1 }))).code).toBe('DS_VALIDATION_RANGE');
    expect((await mine.createDoc({ '~class': 'Note', stars: 1 })).stars).toBe(1);
  });

  it('card operations: get, getCards, deleteCard', async () => {
    const stack = await kernelStack();
    const colors = await Class.create(stack, 'Color', 'class', '', { name: { type: 'string', primaryKey: true }, warm: { type: 'boolean' } });
    await colors.addOrUpdateCard({ name: 'red', warm: true });
    const blue = await colors.addOrUpdateCard({ name: 'blue', warm: false });
    await Class.create(stack, 'Other', 'class');
    const other = await stack.createDoc({ '~class': 'Other' });
    expect((await colors.get(blue._id))?.name).toBe('blue');
    expect(await colors.get(other._id)).toBeNull();
    expect((await colors.getCards({ warm: true }, ['name'])).map((c) => c.name)).toEqual(['red']);
    expect(await colors.getCards(undefined, undefined, 1, 5)).toHaveLength(1);
    await colors.deleteCard(blue._id);
    expect(await colors.get(blue._id)).toBeNull();
    expect((await refusal(colors.deleteCard(other._id))).code).toBe('DS_DOC_NOT_FOUND');
    expect((await colors.getCards()).map((c) => c.name)).toEqual(['red']);
  });

  it('runs the change feed only while a class object has listeners', async () => {
    const stack = await kernelStack();
    const cls = await Class.create(stack, 'Quiet', 'class', '', { n: { type: 'integer' } });
    await stack.createDocs(Array.from({ length: 10 }, (_, i) => ({ '~class': 'Quiet', n: i })));
    expect(stack.changes.running).toBe(false);
    const seen: string[] = [];
    const listener = (c: { id: string }) => seen.push(c.id);
    cls.on('change', listener);
    expect(stack.changes.running).toBe(true);
    const doc = await stack.createDoc({ '~class': 'Quiet', n: 99 });
    await until(() => seen.includes(doc._id));
    cls.off('change', listener);
    expect(stack.changes.running).toBe(false);
  });

  it('enforces a class changed by another writer within a second, with no feed running', async () => {
    const name = uniqueName('ttl');
    const clock = new ManualClock(); // the second passes on the stack's clock, not on the test's
    const mine = track(await createStack({ name, adapter: 'memory', plugins: [validationPlugin], clock }));
    const theirs = track(await createStack({ name, adapter: 'memory', plugins: [validationPlugin] }));
    const local = await Class.create(mine, 'Score', 'class', '', { points: { type: 'integer' } });
    await mine.createDoc({ '~class': 'Score', points: 5 }); // the class is cached here now
    await Attribute.create(await theirs.getClass('Score'), 'level', 'integer', '', { min: 1 });
    expect(mine.changes.running).toBe(false);
    clock.advance(VERIFY_AFTER_MS);
    expect((await refusal(mine.createDoc({ '~class': 'Score', level: 0 }))).code).toBe('DS_VALIDATION_RANGE');
    expect(Object.keys(local.model.schema)).toEqual(['points', 'level']);
  });
});
