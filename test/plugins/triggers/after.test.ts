/**
 * after-triggers: they run once the document is stored, write other documents through the
 * pipeline, and their failures are reported (event + ~TriggerFailure record) without undoing
 * the write or failing the caller. Writes they start are depth-limited.
 */
import { describe, expect, it } from 'vitest';
import { Class, definePlugin, DocstackError, type Doc } from '../../../index.js';
import { addTrigger } from '../../../plugins/triggers/index.js';
import { registerTriggerHandler, TRIGGER_FAILURE_CLASS } from '../../../plugins/triggers/index.js';
import { expectRefused } from '../../helpers/stack.js';
import { triggerStack } from './setup.js';

const after = (name: string, handler: string, on: string[], extra: Record<string, unknown> = {}) => ({ name, when: 'after', on, handler, ...extra });

describe('after-triggers write other documents', () => {
  it('keeps an audit log through the pipeline, one entry per operation', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, after('audit', 'test.audit', ['create', 'update', 'delete']));
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    await t.stack.updateDoc(doc._id, { title: 'b' });
    await t.stack.deleteDocument(doc._id);
    const log = await t.stack.findDocuments('Audit');
    expect(log.map((e) => [e.docId, e.op, e.title, e.depth])).toEqual(
      expect.arrayContaining([
        [doc._id, 'create', 'a', 0],
        [doc._id, 'update', 'b', 0],
        [doc._id, 'delete', 'b', 0],
      ]),
    );
    expect(log).toHaveLength(3);
    expect(t.failures).toEqual([]);
  });

  it('gives the handler the validated plaintext document at its new revision, not the stored form', async () => {
    const seen: Doc[] = [];
    // stands in for encryption: what beforeWrite returns is stored, the caller gets the draft
    const sealNotes = definePlugin({
      name: 'seal-notes',
      setup: ({ hooks }) => hooks.beforeWrite.tapPromise('seal-notes', async (doc) => (doc.note ? { ...doc, note: 'SEALED' } : doc)),
    });
    const t = await triggerStack({ extra: [sealNotes] });
    registerTriggerHandler(t.stack, 'test.capture', (doc) => void seen.push(doc));
    await addTrigger(t.tasks, after('capture', 'test.capture', ['create']));
    const created = await t.stack.createDoc({ '~class': 'Task', title: 'a', note: 'secret' });
    expect((await t.stack.storage.get(created._id)) as unknown as Doc).toMatchObject({ note: 'SEALED' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ _id: created._id, _rev: created._rev, note: 'secret', priority: 3 });
  });

  it('runs after-triggers of a createDocs call once per stored document', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, after('audit', 'test.audit', ['create']));
    await t.stack.createDocs([{ '~class': 'Task', title: 'a' }, { '~class': 'Task', title: 'b' }]);
    expect((await t.stack.findDocuments('Audit')).map((e) => e.title).sort()).toEqual(['a', 'b']);
  });
});

describe('after-trigger failures', () => {
  it('keep the write stored, report an event and a readable record, and let later triggers run', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, after('fragile', 'test.refuse', ['create'], { params: { message: 'mail server down' } }));
    await addTrigger(t.tasks, after('later', 'test.log', ['create'], { order: 1 }));
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });

    expect((await t.stack.getDocument(doc._id))?.title).toBe('a');
    expect(t.calls).toEqual(['fragile:create', 'later:create']);
    expect(t.failures).toHaveLength(1);
    const [event] = t.failures;
    expect(event).toMatchObject({ trigger: 'fragile', className: 'Task', docId: doc._id, op: 'create', error: 'mail server down' });
    expect(event.code).toBeUndefined();
    expect(event.failureId).toMatch(/^~TriggerFailure-/);

    const records = await t.stack.findDocuments(TRIGGER_FAILURE_CLASS);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ _id: event.failureId, trigger: 'fragile', className: 'Task', docId: doc._id, op: 'create', error: 'mail server down' });
    expect(Date.parse(String(records[0].at))).not.toBeNaN();
  });

  it('reports a refused nested write with its code (the trigger wrote an invalid document)', async () => {
    const t = await triggerStack();
    registerTriggerHandler(t.stack, 'test.bad-audit', async (doc, c) => {
      await c.write.createDoc({ '~class': 'Audit', docId: doc._id, depth: 'deep' });
    });
    await addTrigger(t.tasks, after('bad-audit', 'test.bad-audit', ['update']));
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    const updated = await t.stack.updateDoc(doc._id, { title: 'b' });
    expect(updated.title).toBe('b');
    expect((await t.stack.getDocument(doc._id))?._rev).toBe(updated._rev);
    expect(await t.count('Audit')).toBe(0);
    expect(t.failures.map((f) => [f.trigger, f.op, f.code])).toEqual([['bad-audit', 'update', 'DS_VALIDATION_TYPE']]);
    const [record] = await t.stack.findDocuments(TRIGGER_FAILURE_CLASS);
    expect(record.code).toBe('DS_VALIDATION_TYPE');
  });

  it('never fail the caller when the failure cannot be recorded, nor when a listener throws', async () => {
    const refuseRecords = definePlugin({
      name: 'refuse-records',
      setup: ({ hooks }) =>
        hooks.validate.tapPromise('refuse-records', async (_draft, ctx) => {
          if (ctx.classModel.name === TRIGGER_FAILURE_CLASS) throw new DocstackError('DS_DOC_INVALID', 'no records today');
        }),
    });
    const t = await triggerStack({ extra: [refuseRecords] });
    t.stack.on('trigger:failed', () => {
      throw new Error('a broken listener');
    });
    await addTrigger(t.tasks, after('fragile', 'test.refuse', ['create']));
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(await t.stack.getDocument(doc._id)).not.toBeNull();
    expect(t.failures).toHaveLength(1);
    expect(t.failures[0]).toMatchObject({ trigger: 'fragile', failureId: null, recordError: 'no records today' });
    expect(await t.count(TRIGGER_FAILURE_CLASS)).toBe(0);
  });

  it('refuses triggers on the failure records themselves', async () => {
    const t = await triggerStack();
    const records = await t.stack.getClass(TRIGGER_FAILURE_CLASS);
    await expectRefused(addTrigger(records, after('echo', 'test.log', ['create'])), 'DS_TRIGGER_INVALID');
    expect(records.model.triggers).toEqual([]);
  });
});

describe('depth limit', () => {
  async function loopStack(triggers?: { maxDepth: number }) {
    const t = await triggerStack(triggers ? { triggers } : {});
    const loop = await Class.create(t.stack, 'Loop', 'class', '', { title: { type: 'string' } });
    await addTrigger(loop, after('again', 'test.loop', ['create']));
    return t;
  }

  it('stops a trigger that writes its own class forever at maxDepth (8): 9 documents, one depth failure', async () => {
    const t = await loopStack();
    const first = await t.stack.createDoc({ '~class': 'Loop', title: 'loop 0' });
    expect(first.title).toBe('loop 0');
    // depths 0 (the caller's write) to 8 are stored; the write at depth 9 is refused
    const docs = await t.stack.findDocuments('Loop');
    expect(docs.map((d) => d.title).sort()).toEqual(Array.from({ length: 9 }, (_, i) => `loop ${i}`));
    expect(t.failures).toHaveLength(1);
    expect(t.failures[0]).toMatchObject({ trigger: 'again', className: 'Loop', op: 'create', code: 'DS_TRIGGER_DEPTH' });
    expect(t.failures[0].error).toContain('limit of 8');
    expect(t.failures[0].docId).toBe(docs.find((d) => d.title === 'loop 8')!._id);
    expect(await t.count(TRIGGER_FAILURE_CLASS)).toBe(1);
  });

  it('follows the maxDepth option', async () => {
    const t = await loopStack({ maxDepth: 2 });
    await t.stack.createDoc({ '~class': 'Loop', title: 'loop 0' });
    expect(await t.count('Loop')).toBe(3);
    expect(t.failures.map((f) => f.code)).toEqual(['DS_TRIGGER_DEPTH']);
    expect(t.failures[0].error).toContain('limit of 2');
  });

  it('refuses any write given a depth past the limit, storing nothing', async () => {
    const t = await triggerStack();
    const err = await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a' }, { depth: 9 }), 'DS_TRIGGER_DEPTH');
    expect(err.message).toContain('limit of 8');
    expect(err.details).toMatchObject({ depth: 9, maxDepth: 8, className: 'Task' });
    expect(await t.count()).toBe(0);
    await t.stack.createDoc({ '~class': 'Task', title: 'a' }, { depth: 8 });
    expect(await t.count()).toBe(1);
  });

  it('refuses a bad maxDepth when the stack opens', async () => {
    await expectRefused(triggerStack({ triggers: { maxDepth: -1 } }), 'DS_STACK_OPTIONS_INVALID', 'maxDepth');
  });
});
