import { describe, expect, it } from 'vitest';
import { createStack } from '../../../index.js';
import type { JobRunDoc, JobTickEvent } from '../../../plugins/jobs/index.js';
import { rawDb, tempDir, track, uniqueName } from '../../helpers/stack.js';
import { jobsPlugins, jobsStack, nextTicks, waitFor } from './helpers.js';
import type { JobsStack } from './helpers.js';

const EVERY_SECOND = '* * * * * *';
const handlers = { tick: async () => ({ at: Date.now() }) };

async function scheduledRuns(stack: JobsStack, job: string): Promise<JobRunDoc[]> {
  return (await stack.jobs.runs(job)).filter((r) => r.trigger === 'schedule');
}

/** The finished scheduled runs of a job, or undefined while there are none (for waitFor). */
async function finishedRuns(stack: JobsStack, job: string): Promise<JobRunDoc[] | undefined> {
  const done = (await scheduledRuns(stack, job)).filter((r) => r.status === 'SUCCESS');
  return done.length > 0 ? done : undefined;
}

describe('jobs: the scheduler', () => {
  it('runs a job on a real one-second schedule and records SUCCESS', async () => {
    const stack = await jobsStack({ jobs: { scheduler: true }, handlers });
    const defined = Date.now();
    await stack.jobs.define({ name: 'tick', handler: 'tick', schedule: EVERY_SECOND });
    const [run] = await waitFor(() => finishedRuns(stack, 'tick'), 3000, 'a scheduled run');
    expect(Date.parse(run.startedAt!) - defined).toBeLessThan(2500);
    expect(run.scheduledFor).toMatch(/\.000Z$/); // a slot of the schedule: whole seconds
    expect(Date.parse(run.startedAt!)).toBeGreaterThanOrEqual(Date.parse(run.scheduledFor!));
    expect(run.result).toHaveProperty('at');
  });

  it('runs only jobs of its platform (or "any"), never disabled ones', async () => {
    const name = uniqueName('platform');
    const client = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ jobs: { scheduler: true, platform: 'client' }, handlers }) }));
    await client.jobs.define({ name: 'on-server', handler: 'tick', schedule: EVERY_SECOND, platform: 'server' });
    await client.jobs.define({ name: 'off', handler: 'tick', schedule: EVERY_SECOND, enabled: false });
    await client.jobs.define({ name: 'on-client', handler: 'tick', schedule: EVERY_SECOND, platform: 'client' });
    await client.jobs.define({ name: 'anywhere', handler: 'tick', schedule: EVERY_SECOND });
    // two slots of the client's own jobs have passed: the other two had the same chances
    await waitFor(async () => (await scheduledRuns(client, 'on-client')).length >= 2, 4000, 'two client runs');
    expect((await scheduledRuns(client, 'anywhere')).length).toBeGreaterThanOrEqual(1);
    expect(await client.jobs.runs('on-server')).toEqual([]);
    expect(await client.jobs.runs('off')).toEqual([]);

    // a server-platform scheduler on the same store does run it
    track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ jobs: { scheduler: true, platform: 'server' }, handlers }) }));
    await waitFor(async () => (await scheduledRuns(client, 'on-server')).length >= 1, 3000, 'a server run');
  });

  it('after downtime, a job whose slots were missed runs once on start, not once per slot (faked history)', async () => {
    const name = uniqueName('catch-up');
    const plugins = (scheduler: boolean) => jobsPlugins({ jobs: { scheduler, tickMs: 50 }, handlers });
    const first = track(await createStack({ name, adapter: 'memory', plugins: plugins(false) }));
    const job = await first.jobs.define({ name: 'yearly', handler: 'tick', schedule: '0 0 1 1 *' });
    // as if defined three years ago: three New Year slots missed while no scheduler ran
    const raw = await rawDb(first).get(job._id);
    await rawDb(first).put({ ...raw, '~createTimestamp': new Date(Date.now() - 3 * 365 * 86_400_000).toISOString() } as never);
    await first.close();

    const second = track(await createStack({ name, adapter: 'memory', plugins: plugins(true) }));
    const started: string[] = []; // every run the scheduler starts, from its first look on
    second.on('job:tick', (tick: JobTickEvent) => started.push(...tick.started));
    const [catchUp] = await waitFor(() => finishedRuns(second, 'yearly'), 3000, 'the catch-up run');
    expect(Date.parse(catchUp.scheduledFor!)).toBeLessThan(Date.now() - 300 * 86_400_000); // stands for the first missed slot
    await nextTicks(second, 3); // three more looks (the job list read again): nothing more is due
    expect(started).toEqual(['yearly']);
    expect(await scheduledRuns(second, 'yearly')).toHaveLength(1);
    await second.close();

    // the catch-up run is the new anchor: reopening does not catch up again
    const third = track(await createStack({ name, adapter: 'memory', plugins: plugins(true) }));
    const looks = await nextTicks(third, 2); // the first look decides a catch-up
    expect(looks.flatMap((tick) => tick.started)).toEqual([]);
    expect(await scheduledRuns(third, 'yearly')).toHaveLength(1);
  });

  it('after downtime (leveldb, every-second schedule), reopening runs one catch-up, then the schedule', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('downtime');
    let skew = 0; // the stacks' clock: moved on while no scheduler runs, instead of waiting
    const clock = { now: () => Date.now() + skew };
    const open = () => createStack({ name, adapter: 'leveldb', dataDir, clock, plugins: jobsPlugins({ jobs: { scheduler: true }, handlers }) });
    const first = await open();
    await first.jobs.define({ name: 'tick', handler: 'tick', schedule: EVERY_SECOND });
    await waitFor(async () => (await scheduledRuns(first, 'tick')).length >= 1, 3000, 'a first run');
    await first.close();
    skew += 2500; // two or three slots go by with no scheduler

    const reopenedAt = clock.now();
    const second = track(await open());
    await waitFor(async () => (await scheduledRuns(second, 'tick')).some((r) => Date.parse(r.scheduledFor!) > reopenedAt), 3000, 'a regular run');
    const sinceReopen = (await scheduledRuns(second, 'tick')).filter((r) => Date.parse(r['~createTimestamp']) >= reopenedAt);
    const catchUps = sinceReopen.filter((r) => Date.parse(r.scheduledFor!) < reopenedAt);
    expect(catchUps).toHaveLength(1);
  });
});
