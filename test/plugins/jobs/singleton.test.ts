import { describe, expect, it } from 'vitest';
import { createStack } from '../../../index.js';
import type { JobHandler, JobStartedEvent } from '../../../plugins/jobs/index.js';
import { track, uniqueName } from '../../helpers/stack.js';
import { gate, jobsPlugins, jobsStack, nextEvent } from './helpers.js';

/** A handler that runs until the test opens its gate. */
function gated() {
  const release = gate();
  const handler: JobHandler = async () => {
    await release.promise;
    return { done: true };
  };
  return { release, handler };
}

describe('jobs: singletons', () => {
  it('a second start while the singleton is RUNNING is recorded SKIPPED', async () => {
    const { release, handler } = gated();
    const stack = await jobsStack({ handlers: { slow: handler } });
    await stack.jobs.define({ name: 'solo', handler: 'slow', singleton: true });
    const started = nextEvent<JobStartedEvent>(stack, 'job:started');
    const first = stack.jobs.run('solo');
    await started;

    const second = await stack.jobs.run('solo');
    expect(second).toMatchObject({ status: 'SKIPPED', attempt: 1 });
    expect(second.error).toMatch(/already running in this stack/);
    expect(second.startedAt).toBeUndefined(); // never ran: PENDING → SKIPPED
    release.open();
    expect(await first).toMatchObject({ status: 'SUCCESS', result: { done: true } });
    // once it finished, it can run again
    expect((await stack.jobs.run('solo')).status).toBe('SUCCESS');
  });

  it('two starts at the same moment: one runs, one is SKIPPED; a non-singleton job overlaps freely', async () => {
    const { release, handler } = gated();
    const stack = await jobsStack({ handlers: { slow: handler } });
    await stack.jobs.define({ name: 'solo', handler: 'slow', singleton: true });
    await stack.jobs.define({ name: 'many', handler: 'slow' });
    const runs = [stack.jobs.run('solo'), stack.jobs.run('solo'), stack.jobs.run('many'), stack.jobs.run('many')];
    setTimeout(() => release.open(), 100);
    const statuses = (await Promise.all(runs)).map((r) => `${r.job}:${r.status}`);
    expect(statuses.slice(0, 2).sort()).toEqual(['solo:SKIPPED', 'solo:SUCCESS']);
    expect(statuses.slice(2)).toEqual(['many:SUCCESS', 'many:SUCCESS']);
  });

  it('never overlaps across two instances of one store; the lock is released after the run', async () => {
    const { release, handler } = gated();
    const name = uniqueName('singleton');
    const handlers = { slow: handler };
    const a = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ handlers }) }));
    const b = track(await createStack({ name, adapter: 'memory', plugins: jobsPlugins({ handlers }) }));
    await a.jobs.define({ name: 'solo', handler: 'slow', singleton: true });
    const started = nextEvent<JobStartedEvent>(a, 'job:started');
    const first = a.jobs.run('solo');
    await started;

    const elsewhere = await b.jobs.run('solo');
    expect(elsewhere.status).toBe('SKIPPED');
    expect(elsewhere.error).toMatch(/another instance/);
    release.open();
    expect((await first).status).toBe('SUCCESS');
    expect((await b.jobs.run('solo')).status).toBe('SUCCESS');
  });

  it('a lock left by a crashed holder stops others only until its lease expires', async () => {
    const stack = await jobsStack({ handlers: { quick: async () => 'ok' } });
    await stack.jobs.define({ name: 'solo', handler: 'quick', singleton: true });
    const lockId = '_local/~job-lock/solo';
    await stack.storage.put({ _id: lockId, owner: 'crashed-run', expiresAt: Date.now() + 60_000 });
    expect((await stack.jobs.run('solo')).status).toBe('SKIPPED');

    const live = await stack.storage.get<{ _id: string }>(lockId);
    await stack.storage.put({ ...live!, expiresAt: Date.now() - 1 }); // the lease ran out
    expect((await stack.jobs.run('solo')).status).toBe('SUCCESS');
    expect(await stack.storage.get(lockId)).toBeNull(); // released
  });
});
