import type { BrowserStack } from '../../../plugins.config.js';
import { describe, expect, it } from 'vitest';
import { createStack, DocstackError } from '../../../index.js';
import { RUN_CLASS, type JobFinishedEvent, type JobRunDoc, type JobStartedEvent } from '../../../plugins/jobs/index.js';
import { expectRefused, track, uniqueName } from '../../helpers/stack.js';
import { gate, jobsPlugins, jobsStack } from './helpers.js';

/** Statuses a run record went through, from the stack's change events. */
function recordStatuses(stack: BrowserStack): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  stack.on('change', (change: { className: string; id: string; doc: { status: string } }) => {
    if (change.className !== RUN_CLASS) return;
    seen.set(change.id, [...(seen.get(change.id) ?? []), change.doc.status]);
  });
  return seen;
}

describe('jobs: running by hand', () => {
  it('stack.jobs.run returns the finished run record; run params merge over job params', async () => {
    const stack = await jobsStack({ handlers: { add: async ({ params, depth }) => ({ sum: (params.a as number) + (params.b as number), depth }) } });
    await stack.jobs.define({ name: 'add', handler: 'add', params: { a: 1, b: 2 } });
    const statuses = recordStatuses(stack);
    const started: JobStartedEvent[] = [];
    const finished: JobFinishedEvent[] = [];
    stack.on('job:started', (e: JobStartedEvent) => started.push(e));
    stack.on('job:finished', (e: JobFinishedEvent) => finished.push(e));

    const run = await stack.jobs.run('add', { b: 40 });
    expect(run).toMatchObject({ job: 'add', status: 'SUCCESS', trigger: 'manual', attempt: 1, params: { a: 1, b: 40 }, result: { sum: 41, depth: 0 } });
    expect(run['~class']).toBe(RUN_CLASS);
    expect(Date.parse(run.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(run.startedAt!));
    expect(statuses.get(run._id)).toEqual(['PENDING', 'RUNNING', 'SUCCESS']);
    expect(await stack.getDocument(run._id)).toMatchObject({ status: 'SUCCESS', result: { sum: 41, depth: 0 } });
    expect(started).toEqual([{ job: 'add', runId: run._id, trigger: 'manual', attempt: 1 }]);
    expect(finished).toEqual([{ job: 'add', runId: run._id, trigger: 'manual', attempt: 1, status: 'SUCCESS', durationMs: run.durationMs, willRetry: false }]);

    const byEvent = await stack.jobs.run('add', {}, { trigger: 'event', depth: 2 });
    expect(byEvent).toMatchObject({ trigger: 'event', result: { sum: 3, depth: 2 } });
    expect((await stack.jobs.runs('add')).map((r) => r._id)).toEqual([byEvent._id, run._id]); // newest first
    expect(await stack.jobs.runs('add', { limit: 1 })).toHaveLength(1);
    expect((await stack.jobs.runs()).map((r) => r._id)).toEqual([byEvent._id, run._id]);
  });

  it('records a thrown error as FAILURE with its code; the run still resolves', async () => {
    const stack = await jobsStack({
      handlers: {
        boom: async () => {
          throw new DocstackError('DS_DOC_NOT_FOUND', 'nothing to do');
        },
        list: async () => [1, 2],
      },
    });
    await stack.jobs.define({ name: 'boom', handler: 'boom' });
    await stack.jobs.define({ name: 'list', handler: 'list' });
    expect(await stack.jobs.run('boom')).toMatchObject({ status: 'FAILURE', error: 'nothing to do', errorCode: 'DS_DOC_NOT_FOUND' });
    expect((await stack.jobs.run('list')).result).toEqual({ value: [1, 2] });
  });

  it('refuses a disabled job, an unknown job and bad run options, recording nothing', async () => {
    const stack = await jobsStack({ handlers: { noop: async () => undefined } });
    await stack.jobs.define({ name: 'off', handler: 'noop', enabled: false });
    await expectRefused(stack.jobs.run('off'), 'DS_JOB_DISABLED');
    await expectRefused(stack.jobs.run('ghost'), 'DS_JOB_NOT_FOUND');
    await expectRefused(stack.jobs.run('off', [] as never), 'DS_JOB_INVALID', 'params');
    await expectRefused(stack.jobs.run('off', {}, { trigger: 'schedule' as never }), 'DS_JOB_INVALID', 'trigger');
    expect(await stack.findDocuments(RUN_CLASS, {}, { includeInactive: true })).toEqual([]);
  });

  it('a timeout aborts the signal, records TIMEOUT and ignores the late result', async () => {
    let signal: AbortSignal | undefined;
    let late: Promise<unknown> | undefined;
    const release = gate();
    const stack = await jobsStack({
      handlers: {
        slow: (context) => {
          signal = context.signal;
          // ignores the signal on purpose: its late result must not count
          late = release.promise.then(() => ({ late: true }));
          return late;
        },
      },
    });
    await stack.jobs.define({ name: 'slow', handler: 'slow', timeout: 100 });
    const statuses = recordStatuses(stack);
    const run = await stack.jobs.run('slow'); // resolves although the handler is still waiting
    expect(run).toMatchObject({ status: 'TIMEOUT', errorCode: 'DS_JOB_TIMEOUT' });
    expect(run.error).toMatch(/timeout of 100 ms/);
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DocstackError).code).toBe('DS_JOB_TIMEOUT');
    release.open();
    await late; // the late result is delivered (to the runner first: it awaited it before us)
    const stored = (await stack.getDocument(run._id)) as JobRunDoc;
    expect(stored.status).toBe('TIMEOUT');
    expect(stored.result).toBeUndefined();
    expect(stored._rev).toBe(run._rev);
    expect(statuses.get(run._id)).toEqual(['PENDING', 'RUNNING', 'TIMEOUT']);
  });

  it('retries with exponential backoff: fails twice, then succeeds on attempt 3', async () => {
    let calls = 0;
    const stack = await jobsStack({
      handlers: {
        flaky: async () => {
          calls += 1;
          if (calls < 3) throw new Error(`failure ${calls}`);
          return { calls };
        },
      },
    });
    await stack.jobs.define({ name: 'flaky', handler: 'flaky', retries: 3, backoffMs: 100 });
    const finished: JobFinishedEvent[] = [];
    stack.on('job:finished', (e: JobFinishedEvent) => finished.push(e));
    const run = await stack.jobs.run('flaky');
    expect(run).toMatchObject({ status: 'SUCCESS', attempt: 3, result: { calls: 3 } });

    const attempts = (await stack.jobs.runs('flaky')).reverse();
    expect(attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [1, 'FAILURE', 'failure 1'],
      [2, 'FAILURE', 'failure 2'],
      [3, 'SUCCESS', undefined],
    ]);
    expect(attempts[1].retryOf).toBe(attempts[0]._id);
    expect(attempts[2].retryOf).toBe(attempts[0]._id);
    // backoff 100 ms, then 200 ms (timers may fire a millisecond early against Date)
    const gap = (i: number) => Date.parse(attempts[i].startedAt!) - Date.parse(attempts[i - 1].finishedAt!);
    expect(gap(1)).toBeGreaterThanOrEqual(95);
    expect(gap(2)).toBeGreaterThanOrEqual(195);
    expect(finished.map((e) => [e.attempt, e.status, e.willRetry])).toEqual([
      [1, 'FAILURE', true],
      [2, 'FAILURE', true],
      [3, 'SUCCESS', false],
    ]);
  });

  it('stops after the last retry and resolves with the last failure', async () => {
    const stack = await jobsStack({
      handlers: {
        never: async () => {
          throw new Error('always');
        },
      },
    });
    await stack.jobs.define({ name: 'never', handler: 'never', retries: 1, backoffMs: 10 });
    const run = await stack.jobs.run('never');
    expect(run).toMatchObject({ status: 'FAILURE', attempt: 2, error: 'always' });
    expect(await stack.jobs.runs('never')).toHaveLength(2);
  });

  it('refuses a job whose handler this stack lacks (defined by another instance), recording nothing', async () => {
    const name = uniqueName('lacking');
    const withHandler = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ handlers: { there: async () => 1 } }) }));
    const without = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins() }));
    await withHandler.jobs.define({ name: 'elsewhere', handler: 'there', retries: 3 });
    await expectRefused(without.jobs.run('elsewhere'), 'DS_HANDLER_UNKNOWN', 'handler');
    expect(await without.jobs.runs('elsewhere')).toEqual([]);
  });
});
