import type { BrowserStack } from '../../../plugins.config.js';
import { describe, expect, it } from 'vitest';
import { createError, createStack, definePlugin } from '../../../index.js';
import { jobsPlugin, registerJobHandler, JOB_CLASS, JOB_HANDLERS, JobHandlerRegistry } from '../../../plugins/jobs/index.js';
import { browserWithout, expectRefused, memoryStack, uniqueName } from '../../helpers/stack.js';
import { jobsStack } from './helpers.js';

const noop = async () => undefined;

/** Every ~Job document, inactive ones included: refusals must leave this unchanged. */
async function storedJobs(stack: BrowserStack) {
  return stack.findDocuments(JOB_CLASS, {}, { includeInactive: true });
}

describe('jobs: the job model', () => {
  it('ensures the ~Job and ~JobRun classes on open and adds stack.jobs (typed through BrowserStack)', async () => {
    const stack = await jobsStack({ handlers: { noop } });
    expect(await stack.listClasses()).toEqual(expect.arrayContaining(['~Job', '~JobRun']));
    const api: BrowserStack['jobs'] = stack.jobs;
    expect(api.handlers()).toEqual(['noop']);
    expect(stack.container.resolve<JobHandlerRegistry>(JOB_HANDLERS)).toBeInstanceOf(JobHandlerRegistry);
  });

  it('defines a job with its defaults, finds it by name, lists, updates and removes it', async () => {
    const stack = await jobsStack({ handlers: { noop } });
    const job = await stack.jobs.define({ name: 'nightly', handler: 'noop', schedule: '0 3 * * *', params: { a: 1 } });
    expect(job).toMatchObject({ name: 'nightly', handler: 'noop', schedule: '0 3 * * *', params: { a: 1 }, singleton: false, enabled: true, platform: 'any', retries: 0, backoffMs: 1000 });
    expect(job['~class']).toBe(JOB_CLASS);
    expect((await stack.jobs.get('nightly'))?._id).toBe(job._id);
    expect(await stack.jobs.get('nope')).toBeNull();

    const updated = await stack.jobs.update('nightly', { schedule: null, enabled: false, timeout: 500 });
    expect(updated.schedule).toBeUndefined();
    expect(updated).toMatchObject({ enabled: false, timeout: 500, params: { a: 1 } });
    expect((await stack.jobs.list()).map((j) => j.name)).toEqual(['nightly']);

    await stack.jobs.remove('nightly');
    expect(await stack.jobs.get('nightly')).toBeNull();
    expect(await stack.jobs.list()).toEqual([]);
    // the name is free again: the removed job only keeps its (inactive) document
    await stack.jobs.define({ name: 'nightly', handler: 'noop' });
    expect(await stack.jobs.list()).toHaveLength(1);
  });

  it('refuses an unknown handler, a bad cron, a duplicate and bad fields, storing nothing', async () => {
    const stack = await jobsStack({ handlers: { noop } });
    await stack.jobs.define({ name: 'taken', handler: 'noop' });
    const before = await storedJobs(stack);

    await expectRefused(stack.jobs.define({ name: 'a', handler: 'missing' }), 'DS_HANDLER_UNKNOWN', 'handler');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', schedule: 'every minute' }), 'DS_JOB_INVALID', 'schedule');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', schedule: '61 * * * *' }), 'DS_JOB_INVALID', 'schedule');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', schedule: '2030-01-01T00:00:00' }), 'DS_JOB_INVALID', 'schedule');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', schedule: '0 0 30 2 *' }), 'DS_JOB_INVALID', 'schedule');
    await expectRefused(stack.jobs.define({ name: 'taken', handler: 'noop' }), 'DS_JOB_EXISTS', 'name');
    await expectRefused(stack.jobs.define({ name: 'a~b', handler: 'noop' }), 'DS_JOB_INVALID', 'name');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', retries: -1 }), 'DS_JOB_INVALID', 'retries');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', timeout: 1.5 }), 'DS_JOB_INVALID', 'timeout');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', platform: 'mobile' as never }), 'DS_JOB_INVALID', 'platform');
    await expectRefused(stack.jobs.define({ name: 'a', handler: 'noop', code: 'x()' } as never), 'DS_JOB_INVALID', 'code');
    await expectRefused(stack.jobs.update('taken', { schedule: 'nope' }), 'DS_JOB_INVALID', 'schedule');
    await expectRefused(stack.jobs.update('taken', { name: 'other' }), 'DS_JOB_INVALID', 'name');
    await expectRefused(stack.jobs.update('ghost', { enabled: false }), 'DS_JOB_NOT_FOUND');
    await expectRefused(stack.jobs.remove('ghost'), 'DS_JOB_NOT_FOUND');

    expect(await storedJobs(stack)).toEqual(before);
  });

  it('two definers of one name at the same moment: exactly one wins', async () => {
    const stack = await jobsStack({ handlers: { noop } });
    const results = await Promise.allSettled([stack.jobs.define({ name: 'race', handler: 'noop' }), stack.jobs.define({ name: 'race', handler: 'noop' })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.code).toBe('DS_JOB_EXISTS');
    expect(await stack.jobs.list()).toHaveLength(1);
  });

  it('lets a third-party job plugin register its handler, with its own error code, in a few lines', async () => {
    const Nobody = createError('ACME_GREETER_NOBODY', 'A greeting needs someone to greet.');
    const greeter = definePlugin({
      name: 'greeter',
      requires: ['jobs'],
      errors: [Nobody],
      setup(kernel) {
        registerJobHandler(kernel, 'greet', async ({ params }) => {
          if (!params.who) throw Nobody('params.who is empty.', { path: 'who' });
          return `hello ${String(params.who)}`;
        });
      },
    });
    const stack = await memoryStack({ plugins: [...browserWithout('jobs', 'retention'), greeter, jobsPlugin] }); // order does not matter: requires does
    await stack.jobs.define({ name: 'hello', handler: 'greet', params: { who: 'world' } });
    const run = await stack.jobs.run('hello');
    expect(run).toMatchObject({ status: 'SUCCESS', result: { value: 'hello world' } });
    await stack.jobs.define({ name: 'silent', handler: 'greet', params: {} });
    expect(await stack.jobs.run('silent')).toMatchObject({ status: 'FAILURE', errorCode: 'ACME_GREETER_NOBODY' });
  });

  it('refuses a job plugin without the jobs plugin, a handler registered twice, and bad plugin options', async () => {
    const orphan = definePlugin({ name: 'orphan', requires: ['jobs'], setup: (kernel) => registerJobHandler(kernel, 'x', noop) });
    await expectRefused(createStack({ name: uniqueName(), adapter: 'memory', plugins: [...browserWithout('jobs', 'retention'), orphan] }), 'DS_PLUGIN_MISSING_REQUIREMENT');
    const twice = definePlugin({
      name: 'twice',
      requires: ['jobs'],
      setup(kernel) {
        registerJobHandler(kernel, 'same', noop);
        registerJobHandler(kernel, 'same', noop);
      },
    });
    await expectRefused(createStack({ name: uniqueName(), adapter: 'memory', plugins: [...browserWithout('jobs', 'retention'), jobsPlugin, twice] }), 'DS_HANDLER_DUPLICATE');
    // @ts-expect-error a platform the jobs plugin does not know does not compile; JavaScript callers get the refusal
    await expectRefused(createStack({ name: uniqueName(), adapter: 'memory', plugins: [...browserWithout('jobs', 'retention'), [jobsPlugin, { platform: 'phone' }]] }), 'DS_STACK_OPTIONS_INVALID', 'jobs.platform');
  });
});
