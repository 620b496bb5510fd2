import { describe, expect, it } from 'vitest';
import { Class, createStack, definePlugin, type DocChangeEvent, type Doc } from '../../index.js';
import { attr, metaClass } from '../../kit/index.js';
import { browser } from '../../plugins.config.js';
import { sqlPlugin } from '../../plugins/sql/index.js';
import { track, uniqueName } from '../helpers/stack.js';
import { AsyncSeriesHook } from 'tapable';

declare module '../../index.js' {
  interface WriteSession {
    user?: string;
  }
}

/** The audit-log plugin of docs/plugins.md: `~updatedBy` stamped, one `~Audit` record per document, stored with it. */
const auditLog = definePlugin({
  name: 'audit-log',
  patches: [{
    id: 'audit-log/0001-audit-class',
    description: 'The ~Audit class: who wrote which document, how.',
    apply: async ({ storage, now }) => {
      if (!(await storage.get('~Audit'))) await storage.put(metaClass('~Audit', 'class', 'Who wrote what.', [attr('docId', 'string'), attr('op', 'string'), attr('by', 'string')], now));
    },
  }],
  setup(kernel) {
    kernel.defineSystemField('~updatedBy');
    kernel.hooks.beforeValidate.tapPromise('audit-log', async (draft, ctx) => (ctx.session?.user ? { ...draft, '~updatedBy': ctx.session.user } : draft));
    kernel.addWritePart({
      name: 'audit-log',
      begin: ({ items, origin }) => origin !== 'local' ? undefined : {
        docs: (start, end) => items.slice(start, end).map(({ doc, op, context }) => ({
          _id: `~Audit-${crypto.randomUUID()}`, '~class': '~Audit', '~createTimestamp': new Date().toISOString(), active: true,
          docId: doc._id, op, ...(context.session?.user ? { by: context.session.user } : {}),
        })),
      },
    });
  },
});

async function open() {
  const stack = await createStack({ name: uniqueName('audit'), adapter: 'memory', plugins: [...browser, sqlPlugin, auditLog] }).then(track);
  await Class.create(stack, 'Note', 'class', '', { title: { type: 'string', primaryKey: true }, body: { type: 'string' } });
  return stack;
}

const records = async (stack: Awaited<ReturnType<typeof open>>) => (await stack.storage.range({ prefix: '~Audit-', includeDocs: true })).map((r) => r.doc as Doc);

describe('an audit-log plugin: a plugin-owned system field and a record stored with each write', () => {
  it('stamps ~updatedBy on the returned document and the change event, and stores one audit record per document', async () => {
    const stack = await open();
    const events: DocChangeEvent[] = [];
    stack.on('change', (e: DocChangeEvent) => events.push(e));
    const before = (await records(stack)).length; // Class.create was audited too
    const note = await stack.createDoc({ '~class': 'Note', title: 'a' }, { session: { user: 'ann' } });
    expect(note['~updatedBy']).toBe('ann');
    expect(events.find((e) => e.id === note._id)?.doc['~updatedBy']).toBe('ann');
    const updated = await stack.updateDoc(note._id, { body: 'b' }, { session: { user: 'bob' } });
    expect(updated['~updatedBy']).toBe('bob');
    expect((await stack.getDocument(note._id))?.['~updatedBy']).toBe('bob');
    const mine = (await records(stack)).filter((r) => r.docId === note._id);
    expect(mine.map((r) => [r.op, r.by]).sort()).toEqual([['create', 'ann'], ['update', 'bob']]);
    expect((await records(stack)).length).toBe(before + 2);
    // the records are documents of the plugin's class, readable as any
    expect((await stack.findDocuments('~Audit', { docId: note._id })).length).toBe(2);
  });

  it('refuses a caller setting the plugin field by hand (DS_DOC_PROTECTED_FIELD); the stored value may be given back unchanged', async () => {
    const stack = await open();
    await expect(stack.createDoc({ '~class': 'Note', title: 'x', '~updatedBy': 'mallory' })).rejects.toMatchObject({ code: 'DS_DOC_PROTECTED_FIELD', path: '~updatedBy' });
    const note = await stack.createDoc({ '~class': 'Note', title: 'y' }, { session: { user: 'ann' } });
    await expect(stack.updateDoc(note._id, { '~updatedBy': 'mallory' })).rejects.toMatchObject({ code: 'DS_DOC_PROTECTED_FIELD' });
    // a document read and written back whole repeats the stored value: no change, accepted
    const again = await stack.updateDoc(note._id, { ...note, body: 'z' }, { session: { user: 'bob' } });
    expect(again['~updatedBy']).toBe('bob');
    // an attribute cannot take a system field's name
    await expect(Class.create(stack, 'Bad', 'class', '', { '~updatedBy': { type: 'string' } })).rejects.toMatchObject({ code: 'DS_ATTRIBUTE_NAME_INVALID' });
  });

  it('is atomic with the write: a write refused at store time leaves no audit record', async () => {
    const stack = await open();
    const before = (await records(stack)).length;
    // a guard (the transactions plugin's read check) throwing inside the write lock: nothing stored
    await expect(
      stack.writeRequests([{ op: 'create', draft: { _id: 'Note-g', '~class': 'Note', title: 'g', '~createTimestamp': new Date().toISOString(), active: true }, classModel: await stack.requireClass('Note') }], 'local', {
        session: { user: 'ann' },
        guard: async () => {
          throw new Error('changed meanwhile');
        },
      }),
    ).rejects.toThrow('changed meanwhile');
    // a document refused by storage in the same bulkDocs call (another writer made the id): the records stored with it are taken back
    const [taken] = await stack.ingest([{ _id: 'Note-taken', _rev: '1-abc', '~class': 'Note', title: 't', '~createTimestamp': new Date().toISOString(), active: true }]);
    expect(taken).toMatchObject({ ok: true });
    const draft = (id: string, title: string) => ({ _id: id, '~class': 'Note', title, '~createTimestamp': new Date().toISOString(), active: true });
    const model = await stack.requireClass('Note');
    await expect(stack.writeRequests([{ op: 'create', draft: draft('Note-free', 'f'), classModel: model }, { op: 'create', draft: draft('Note-taken', 'u'), classModel: model }], 'local', { session: { user: 'ann' } })).rejects.toMatchObject({ code: 'DS_DOC_EXISTS' });
    expect(await stack.getDocument('Note-free')).toBeNull();
    expect(await records(stack)).toHaveLength(before);
  });

  it('writes nothing on a dry run (checkRequests)', async () => {
    const stack = await open();
    const before = (await records(stack)).length;
    const [checked] = await stack.checkRequests([{ op: 'create', draft: { _id: 'Note-dry', '~class': 'Note', title: 'd', '~createTimestamp': new Date().toISOString(), active: true }, classModel: await stack.requireClass('Note') }], 'local', { session: { user: 'ann' } });
    expect(checked['~updatedBy']).toBe('ann');
    expect(await records(stack)).toHaveLength(before);
    expect(await stack.getDocument('Note-dry')).toBeNull();
  });

  it("stamps a transaction's writes and a statement's writes with their session", async () => {
    const stack = await open();
    const [a, b] = await stack.transaction(async (tx) => [await tx.createDoc({ '~class': 'Note', title: 'tx1' }), await tx.createDoc({ '~class': 'Note', title: 'tx2' })], { session: { user: 'carol' } });
    expect([a['~updatedBy'], b['~updatedBy']]).toEqual(['carol', 'carol']);
    expect((await stack.getDocument(a._id))?.['~updatedBy']).toBe('carol');
    expect((await records(stack)).filter((r) => r.docId === a._id || r.docId === b._id).map((r) => r.by)).toEqual(['carol', 'carol']);
    // a transaction cannot set the field by hand either
    await expect(stack.transaction(async (tx) => tx.createDoc({ '~class': 'Note', title: 'tx3', '~updatedBy': 'x' }))).rejects.toMatchObject({ code: 'DS_DOC_PROTECTED_FIELD' });

    const { ids } = await stack.sql<{ ids: string[] }>("INSERT INTO Note (title) VALUES ('s1')", undefined, { session: { user: 'dave' } });
    expect((await stack.getDocument(ids[0]))?.['~updatedBy']).toBe('dave');
    await stack.sql("UPDATE Note SET body = 's2' WHERE title = 's1'", undefined, { session: { user: 'erin' } });
    expect((await stack.getDocument(ids[0]))?.['~updatedBy']).toBe('erin');
    expect((await records(stack)).filter((r) => r.docId === ids[0]).map((r) => r.by).sort()).toEqual(['dave', 'erin']);
  });
});

describe('a peer without the plugin', () => {
  it("refuses the plugin's documents with a code (not ok, not held) and keeps its field on the documents it stamped", async () => {
    const a = await open();
    const b = await createStack({ name: uniqueName('audit-b'), adapter: 'memory', plugins: browser }).then(track);
    await Class.create(b, 'Note', 'class', '', { title: { type: 'string', primaryKey: true }, body: { type: 'string' } });
    const note = await a.createDoc({ '~class': 'Note', title: 'n' }, { session: { user: 'ann' } });
    const recordIds = (await a.storage.range({ prefix: '~Audit-' })).map((r) => r.id);
    const revision = (id: string) => a.storage.replication.get(id, { revs: true });
    const results = await b.ingest(await Promise.all([...recordIds, note._id].map(revision)));
    // the records: a ~ class no plugin here owns never arrives, so they are refused, not held
    expect(results.slice(0, -1).map((r) => !r.ok && r.code)).toEqual(recordIds.map(() => 'DS_CLASS_NOT_HERE'));
    expect(await b.heldDocuments()).toEqual([]);
    // the note: stored with the peer plugin's stamp as it came (not held as "schema ahead")
    expect(results.at(-1)).toEqual({ id: note._id, ok: true, rev: note._rev });
    expect((await b.getDocument(note._id))?.['~updatedBy']).toBe('ann');
    // updated here, the stamp is kept unchanged; set by hand it is an unknown attribute
    expect((await b.updateDoc(note._id, { body: 'm' }))['~updatedBy']).toBe('ann');
    await expect(b.updateDoc(note._id, { '~updatedBy': 'mallory' })).rejects.toMatchObject({ code: 'DS_VALIDATION_UNKNOWN_ATTRIBUTE' });
    await expect(b.createDoc({ '~class': 'Note', title: 'o', '~updatedBy': 'mallory' })).rejects.toMatchObject({ code: 'DS_VALIDATION_UNKNOWN_ATTRIBUTE' });
  });
});

describe('hooks a plugin publishes', () => {
  it('are made per stack, called by their plugin and tapped by a plugin that lists it', async () => {
    const counter = definePlugin({
      name: 'counter',
      hooks: () => ({ counted: new AsyncSeriesHook<[string]>(['id']) }),
      setup({ hooks, ownHooks }) {
        hooks.afterWrite.tapPromise('counter', async ([doc]) => ownHooks.counted.promise(doc._id));
      },
    });
    const seen: string[] = [];
    const listener = definePlugin({
      name: 'listener',
      requires: ['counter'],
      setup({ hooksOf }) {
        hooksOf(counter)?.counted.tap('listener', (id) => void seen.push(id));
      },
    });
    const stranger = definePlugin({ name: 'stranger', setup: ({ hooksOf }) => void hooksOf(counter) });
    const stack = await createStack({ name: uniqueName('hooks'), adapter: 'memory', plugins: [...browser, counter, listener] }).then(track);
    await Class.create(stack, 'Note', 'class', '', { title: { type: 'string' } });
    const note = await stack.createDoc({ '~class': 'Note', title: 'x' });
    expect(seen).toContain(note._id);
    // a second stack has hooks of its own: no tap of the first one runs there
    const other = await createStack({ name: uniqueName('hooks'), adapter: 'memory', plugins: [...browser, counter] }).then(track);
    await Class.create(other, 'Note', 'class', '', { title: { type: 'string' } });
    const before = seen.length;
    await other.createDoc({ '~class': 'Note', title: 'y' });
    expect(seen).toHaveLength(before);
    // reading the hooks of a plugin not listed is refused, as `use` is
    await expect(createStack({ name: uniqueName('hooks'), adapter: 'memory', plugins: [...browser, counter, stranger] })).rejects.toMatchObject({ code: 'DS_PLUGIN_MISSING_REQUIREMENT' });
  });

  it('defineSystemField refuses a malformed name, an engine field and another plugin\'s field', async () => {
    const field = (name: string, field: string) => definePlugin({ name, setup: ({ defineSystemField }) => defineSystemField(field as `~${string}`) });
    const tryOpen = (...plugins: ReturnType<typeof field>[]) => createStack({ name: uniqueName('fields'), adapter: 'memory', plugins: [...browser, ...plugins] }).then(track);
    await expect(tryOpen(field('p', 'updatedBy'))).rejects.toMatchObject({ code: 'DS_PLUGIN_INVALID' });
    await expect(tryOpen(field('p', '~tx'))).rejects.toMatchObject({ code: 'DS_PLUGIN_INVALID' });
    await expect(tryOpen(field('p', '~by'), field('q', '~by'))).rejects.toMatchObject({ code: 'DS_PLUGIN_INVALID', details: { field: '~by' } });
    expect([...(await tryOpen(field('p', '~by'))).systemFields]).toEqual(['~by']);
  });
});
