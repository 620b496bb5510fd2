/**
 * Triggers over time: a third-party trigger plugin, persistence across a reopen (handlers
 * registered again by their plugin; a trigger whose handler is gone), enabling, disabling and
 * removing, replicated writes, and triggers that start jobs.
 */
import { describe, expect, it, vi } from 'vitest';
import { Class, createError, createStack, definePlugin, DocstackError, registeredErrors, type ClassModel, type PluginEntry } from '../../../index.js';
import { removeTrigger, addTrigger, registerTriggerHandler, setTriggerEnabled, TRIGGER_FAILURE_CLASS, triggersPlugin, type TriggerFailedEvent } from '../../../plugins/triggers/index.js';
import { expectRefused, tempDir, track, uniqueName } from '../../helpers/stack.js';
import { preset, presetWithout, triggerStack } from './setup.js';

/** A third-party trigger plugin, written against the package entry, with its own error code. */
const SlugEmpty = createError('ACME_SLUGS_EMPTY', 'The text a slug is made from has no letter or digit.');
const slugs = definePlugin({
  name: 'slugs',
  requires: ['triggers'],
  errors: [SlugEmpty],
  setup(kernel) {
    registerTriggerHandler(kernel, 'slugs.fill', (doc, { params }) => {
      const slug = String(doc[String(params.from)] ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
      if (!/[a-z0-9]/.test(slug)) throw SlugEmpty(`"${String(params.from)}" has no letter or digit to make a slug from.`, { path: String(params.from) });
      return { ...doc, [String(params.to)]: slug };
    });
  },
});

const slugTrigger = { name: 'slug', when: 'before', on: ['create', 'update'], handler: 'slugs.fill', params: { from: 'title', to: 'slug' } };
const pageSchema = { title: { type: 'string', mandatory: true }, slug: { type: 'string', maxLength: 30 } };

describe('a third-party trigger plugin', () => {
  it('registers its handler in setup; a stored trigger names it', async () => {
    const t = await triggerStack({ extra: [slugs] });
    const pages = await Class.create(t.stack, 'Page', 'class', '', pageSchema);
    await addTrigger(pages, slugTrigger);
    const page = await t.stack.createDoc({ '~class': 'Page', title: 'Hello World' });
    expect(page.slug).toBe('hello-world');
    expect((await t.stack.updateDoc(page._id, { title: 'Bye now' })).slug).toBe('bye-now');
    // its result is validated like any draft: a slug past maxLength is refused, nothing stored
    await expectRefused(t.stack.createDoc({ '~class': 'Page', title: 'x'.repeat(31) }), 'DS_VALIDATION_MAX_LENGTH', 'slug');
    // its own error code, carried as the cause of the trigger's refusal
    const refused = await expectRefused(t.stack.createDoc({ '~class': 'Page', title: '!!!' }), 'DS_TRIGGER_REFUSED', 'title');
    expect((refused.cause as DocstackError).code).toBe('ACME_SLUGS_EMPTY');
    expect(registeredErrors().get('ACME_SLUGS_EMPTY')).toMatchObject({ owner: 'slugs', status: 400 });
    expect(await t.count('Page')).toBe(1);
  });
});

describe('persistence', () => {
  it('keeps triggers across a reopen on leveldb; the plugin registers its handlers again', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('triggers');
    const open = (plugins: PluginEntry[]) => createStack({ name, adapter: 'leveldb', dataDir, plugins }).then(track);
    const first = await open([...preset, triggersPlugin, slugs]);
    const pages = await Class.create(first, 'Page', 'class', '', pageSchema);
    await addTrigger(pages, slugTrigger);
    await first.close();

    const second = await open([...preset, triggersPlugin, slugs]);
    expect((await second.getClass('Page')).model.triggers).toEqual([{ ...slugTrigger, description: '', order: 0, enabled: true }]);
    expect((await second.createDoc({ '~class': 'Page', title: 'Again Here' })).slug).toBe('again-here');
    await second.close();

    // without the plugin that registered the handler, a before-trigger refuses rather than be skipped
    const third = await open([...preset, triggersPlugin]);
    const err = await expectRefused(third.createDoc({ '~class': 'Page', title: 'No slug' }), 'DS_HANDLER_UNKNOWN');
    expect(err.message).toContain('"slugs.fill"');
    expect(await third.findDocuments('Page')).toHaveLength(1);
  });

  it('reports an after-trigger whose handler is no longer registered, and keeps the record across a reopen', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('triggers');
    const open = (plugins: PluginEntry[]) => createStack({ name, adapter: 'leveldb', dataDir, plugins }).then(track);
    const first = await open([...preset, triggersPlugin, slugs]);
    const pages = await Class.create(first, 'Page', 'class', '', pageSchema);
    await addTrigger(pages, { ...slugTrigger, when: 'after' });
    await first.close();

    const second = await open([...preset, triggersPlugin]);
    const failures: TriggerFailedEvent[] = [];
    second.on('trigger:failed', (e: TriggerFailedEvent) => failures.push(e));
    const page = await second.createDoc({ '~class': 'Page', title: 'Stored anyway' });
    expect(failures).toMatchObject([{ trigger: 'slug', docId: page._id, code: 'DS_HANDLER_UNKNOWN' }]);
    await second.close();

    const third = await open([...preset, triggersPlugin]);
    expect(await third.findDocuments(TRIGGER_FAILURE_CLASS)).toMatchObject([{ _id: failures[0].failureId, trigger: 'slug', docId: page._id }]);
    expect(await third.getDocument(page._id)).not.toBeNull();
  });
});

describe('enabling, disabling and removing', () => {
  it('does not run a disabled trigger; setTriggerEnabled switches it', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, { name: 'guard', when: 'before', on: ['create'], handler: 'test.refuse', enabled: false });
    await addTrigger(t.tasks, { name: 'log', when: 'after', on: ['create'], handler: 'test.log', enabled: false });
    await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(t.calls).toEqual([]);

    await setTriggerEnabled(t.tasks, 'guard', true);
    await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'b' }), 'DS_TRIGGER_REFUSED');
    await setTriggerEnabled(t.tasks, 'guard', false);
    await setTriggerEnabled(t.tasks, 'log', true);
    await t.stack.createDoc({ '~class': 'Task', title: 'c' });
    expect(t.calls).toEqual(['guard:create', 'log:create']);
    expect(await t.count()).toBe(2);
  });

  it('refuses to switch a trigger the class does not have, changing nothing', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, { name: 'log', when: 'after', on: ['create'], handler: 'test.log' });
    const before = await t.stack.storage.get('Task');
    await expectRefused(setTriggerEnabled(t.tasks, 'other', false), 'DS_TRIGGER_NOT_FOUND', 'name');
    await expectRefused(setTriggerEnabled(t.tasks, 'log', 'no' as never), 'DS_TRIGGER_INVALID', 'enabled');
    expect(await t.stack.storage.get('Task')).toEqual(before);
  });

  it('stops a removed trigger at once, for writes made through the stack', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, { name: 'guard', when: 'before', on: ['create'], handler: 'test.refuse' });
    await expectRefused(t.stack.createDoc({ '~class': 'Task', title: 'a' }), 'DS_TRIGGER_REFUSED');
    expect(await t.count()).toBe(0);
    await removeTrigger(t.tasks, 'guard');
    expect(((await t.stack.storage.get('Task')) as unknown as ClassModel).triggers).toEqual([]);
    await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(await t.count()).toBe(1);
  });
});

describe('origins', () => {
  it('does not run triggers for replicated writes or patches (applied alike on every peer)', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, { name: 'guard', when: 'before', on: ['create'], handler: 'test.refuse' });
    await addTrigger(t.tasks, { name: 'log', when: 'after', on: ['create'], handler: 'test.log' });
    await t.stack.createDoc({ '~class': 'Task', title: 'from a peer' }, { origin: 'replication' });
    await t.stack.createDoc({ '~class': 'Task', title: 'from a patch' }, { origin: 'patch' });
    expect(t.calls).toEqual([]);
    expect(await t.count()).toBe(2);
  });

  it('runs triggers for local and system writes', async () => {
    const t = await triggerStack();
    await addTrigger(t.tasks, { name: 'log', when: 'after', on: ['create'], handler: 'test.log' });
    await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    await t.stack.createDoc({ '~class': 'Task', title: 'b' }, { origin: 'system' });
    expect(t.calls).toEqual(['log:create', 'log:create']);
  });
});

describe('job triggers', () => {
  /**
   * A stand-in for the jobs plugin's API (run/get), in place of the real one: it
   * records the calls and never finishes a run, so the test shows the write does not wait for
   * the job. It checks what the triggers plugin hands to `jobs.run`, not what the jobs plugin
   * then does.
   */
  function fakeJobs(runs: unknown[][]) {
    // named `jobs`: the triggers plugin reads the API of whichever plugin goes by that name
    return definePlugin({
      name: 'jobs',
      setup: () => ({
        get: async (name: string) => (['notify', 'paused'].includes(name) ? { name } : null),
        run: (name: string, params: unknown, options: unknown) => {
          runs.push([name, params, options]);
          if (name === 'paused') return Promise.reject(new DocstackError('DS_JOB_DISABLED', 'The job "paused" is disabled.'));
          return new Promise(() => undefined);
        },
      }),
    });
  }

  it('starts the job with the params, the document and the operation, without waiting for it', async () => {
    const runs: unknown[][] = [];
    const t = await triggerStack({ base: presetWithout('triggers', 'jobs'), extra: [fakeJobs(runs)] });
    await addTrigger(t.tasks, { name: 'notify', when: 'after', on: ['update'], job: 'notify', params: { channel: 'ops' } });
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    expect(runs).toEqual([]);
    await t.stack.updateDoc(doc._id, { title: 'b' }); // resolves although the run never finishes
    await vi.waitFor(() => expect(runs).toHaveLength(1));
    expect(runs[0]).toEqual(['notify', { channel: 'ops', docId: doc._id, className: 'Task', op: 'update' }, { trigger: 'event', depth: 1 }]);
    expect(t.failures).toEqual([]);
  });

  it('reports a job that cannot start (the write stays stored)', async () => {
    const runs: unknown[][] = [];
    const t = await triggerStack({ base: presetWithout('triggers', 'jobs'), extra: [fakeJobs(runs)] });
    await addTrigger(t.tasks, { name: 'nightly', when: 'after', on: ['create'], job: 'paused' });
    const doc = await t.stack.createDoc({ '~class': 'Task', title: 'a' });
    await vi.waitFor(() => expect(t.failures).toHaveLength(1));
    expect(t.failures[0]).toMatchObject({ trigger: 'nightly', docId: doc._id, code: 'DS_JOB_DISABLED', error: 'The job "paused" is disabled.' });
    expect(await t.stack.findDocuments(TRIGGER_FAILURE_CLASS)).toMatchObject([{ _id: t.failures[0].failureId, code: 'DS_JOB_DISABLED' }]);
    expect(await t.count()).toBe(1);
  });
});
