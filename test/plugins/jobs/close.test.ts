import { describe, expect, it } from 'vitest';
import { createStack, type DocstackError } from '../../../index.js';
import type { JobFinishedEvent, JobRunDoc, JobStartedEvent } from '../../../plugins/jobs/index.js';
import { track, uniqueName } from '../../helpers/stack.js';
import { jobsPlugins, jobsStack, nextEvent, sleep } from './helpers.js';

describe('jobs: closing the stack', () => {
  it('waits for a running job, which finishes and is recorded', async () => {
    const name = uniqueName('close-wait');
    const stack = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ handlers: { slow: async () => (await sleep(300), { slept: true }) } }) }));
    await stack.jobs.define({ name: 'slow', handler: 'slow' });
    const started = nextEvent<JobStartedEvent>(stack, 'job:started');
    const run = stack.jobs.run('slow');
    await started;
    const begun = Date.now();
    await stack.close();
    expect(Date.now() - begun).toBeGreaterThanOrEqual(200);
    const finished = await run;
    expect(finished).toMatchObject({ status: 'SUCCESS', result: { slept: true } });

    // the outcome reached storage, although the stack was closing when it came
    const reopened = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ handlers: { slow: async () => undefined } }) }));
    expect(await reopened.getDocument(finished._id)).toMatchObject({ status: 'SUCCESS', result: { slept: true } });
  });

  it('waits at most closeTimeoutMs, then aborts the signal and records the run as FAILURE', async () => {
    let signal: AbortSignal | undefined;
    const stack = await jobsStack({
      jobs: { closeTimeoutMs: 200 },
      handlers: {
        endless: async (context) => {
          signal = context.signal;
          await new Promise(() => undefined); // never settles, not even when aborted
        },
      },
    });
    await stack.jobs.define({ name: 'endless', handler: 'endless' });
    const started = nextEvent<JobStartedEvent>(stack, 'job:started');
    const run = stack.jobs.run('endless');
    await started;
    const begun = Date.now();
    await stack.close();
    const took = Date.now() - begun;
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(2500);
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DocstackError).code).toBe('DS_STACK_CLOSED');
    expect(await run).toMatchObject({ status: 'FAILURE', errorCode: 'DS_STACK_CLOSED' });
  });

  it('cancels a retry waiting for its backoff and refuses new runs', async () => {
    const stack = await jobsStack({
      handlers: {
        fail: async () => {
          throw new Error('nope');
        },
      },
    });
    await stack.jobs.define({ name: 'fail', handler: 'fail', retries: 5, backoffMs: 60_000 });
    const firstAttempt = nextEvent<JobFinishedEvent>(stack, 'job:finished');
    const run = stack.jobs.run('fail');
    expect((await firstAttempt).willRetry).toBe(true);
    const begun = Date.now();
    await stack.close();
    expect(Date.now() - begun).toBeLessThan(2000);
    const last: JobRunDoc = await run;
    expect(last).toMatchObject({ status: 'FAILURE', attempt: 1 });
    await expect(stack.jobs.run('fail')).rejects.toMatchObject({ code: 'DS_STACK_CLOSED' });
  });
});
