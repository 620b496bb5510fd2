import type { BrowserStack } from '../../../plugins.config.js';
import { describe, expect, it, vi } from 'vitest';
import { Class, createStack, definePlugin } from '../../../index.js';
import { jobsPlugin, registerJobHandler, RUN_CLASS } from '../../../plugins/jobs/index.js';
import { RETENTION_SWEEP, retentionPlugin } from '../../../plugins/retention/index.js';
import { sweep } from '../../../plugins/retention/sweep.js';
import { browserWithout, expectRefused, memoryStack, rawDb, uniqueName } from '../../helpers/stack.js';

const DAY_MS = 86_400_000;

async function retentionStack(): Promise<BrowserStack> {
  return memoryStack({ plugins: [...browserWithout('jobs', 'retention'), [jobsPlugin, { scheduler: false }], retentionPlugin] });
}

/**
 * Ten Log documents (keys k0…k9), the first `old` of them made `ageDays` old by writing
 * `~createTimestamp` straight to storage (the pipeline never lets a caller set it).
 */
async function seedLogs(stack: BrowserStack, old: number, ageDays = 40): Promise<string[]> {
  await Class.create(stack, 'Log', 'class', 'log lines', { key: { type: 'string', primaryKey: true }, text: { type: 'string' } });
  const docs = await stack.createDocs(Array.from({ length: 10 }, (_, i) => ({ '~class': 'Log', key: `k${i}`, text: `line ${i}` })));
  const aged = docs.slice(0, old).map((d) => d._id);
  for (const id of aged) {
    const raw = await rawDb(stack).get(id);
    await rawDb(stack).put({ ...raw, '~createTimestamp': new Date(Date.now() - ageDays * DAY_MS).toISOString() } as never);
  }
  return aged;
}

describe('retention: the example job plugin', () => {
  it('deactivates documents older than N days through the pipeline, in batches', async () => {
    const stack = await retentionStack();
    const aged = await seedLogs(stack, 6);
    await stack.jobs.define({ name: 'prune-logs', handler: RETENTION_SWEEP, params: { className: 'Log', olderThanDays: 30, batchSize: 4 } });
    const deletes: string[] = [];
    stack.on('change', (c: { op: string; id: string; className: string; origin: string }) => {
      if (c.className === 'Log' && c.op === 'delete' && c.origin === 'system') deletes.push(c.id);
    });

    const run = await stack.jobs.run('prune-logs');
    expect(run).toMatchObject({ status: 'SUCCESS', result: { swept: 6, batches: 2 } });
    expect(deletes.sort()).toEqual([...aged].sort());
    const active = await stack.findDocuments('Log');
    expect(active.map((d) => d.key).sort()).toEqual(['k6', 'k7', 'k8', 'k9']);
    const inactive = await stack.findDocuments('Log', { active: false }, { includeInactive: true });
    expect(inactive).toHaveLength(6); // deactivated, still stored

    // nothing left to sweep: a second run sweeps nothing
    expect((await stack.jobs.run('prune-logs')).result).toEqual({ swept: 0, batches: 0 });
  });

  it('purges old documents for good (inactive ones too) and releases their primary keys', async () => {
    const stack = await retentionStack();
    const aged = await seedLogs(stack, 7);
    await stack.deleteDocument(aged[0]); // already inactive: purge removes it as well
    await stack.jobs.define({ name: 'purge-logs', handler: RETENTION_SWEEP, params: { className: 'Log', olderThanDays: 30, mode: 'purge', batchSize: 3 } });

    const run = await stack.jobs.run('purge-logs');
    expect(run).toMatchObject({ status: 'SUCCESS', result: { swept: 7, batches: 3 } });
    for (const id of aged) expect(await stack.getDocument(id, { includeInactive: true })).toBeNull();
    expect(await stack.storage.range({ prefix: 'Log-' })).toHaveLength(3);
    // k1 was purged with its key entry: the key is free again
    await stack.createDoc({ '~class': 'Log', key: 'k1', text: 'again' });
    expect((await (await stack.getClass('Log')).getByPrimaryKeys({ key: 'k1' }))?.text).toBe('again');
  });

  it('sweeps a document whose id was chosen outside the class range too', async () => {
    const stack = await retentionStack();
    await seedLogs(stack, 0);
    await stack.createDoc({ '~class': 'Log', key: 'chosen', text: 'old' }, { id: 'log-chosen' });
    const raw = await rawDb(stack).get('log-chosen');
    await rawDb(stack).put({ ...raw, '~createTimestamp': new Date(Date.now() - 40 * DAY_MS).toISOString() } as never);
    await stack.jobs.define({ name: 'purge-logs', handler: RETENTION_SWEEP, params: { className: 'Log', olderThanDays: 30, mode: 'purge', batchSize: 3 } });
    await stack.jobs.run('purge-logs');
    expect(await stack.storage.get('log-chosen')).toBeNull();
    expect(await stack.countDocuments('Log')).toBe(10);
  });

  it('keeps documents younger than the cutoff, and can prune job runs themselves', async () => {
    const stack = await retentionStack();
    await seedLogs(stack, 3, 5); // five days old: younger than 30
    await stack.jobs.define({ name: 'prune-logs', handler: RETENTION_SWEEP, params: { className: 'Log', olderThanDays: 30 } });
    expect((await stack.jobs.run('prune-logs')).result).toEqual({ swept: 0, batches: 0 });
    expect(await stack.findDocuments('Log')).toHaveLength(10);

    await stack.jobs.define({ name: 'prune-runs', handler: RETENTION_SWEEP, params: { className: RUN_CLASS, olderThanDays: 0, mode: 'purge' } });
    const run = await stack.jobs.run('prune-runs');
    expect(run.result).toEqual({ swept: 1, batches: 1 }); // the earlier run; its own record was created after the cutoff
  });

  it('refuses bad params when the job is defined or run, storing nothing', async () => {
    const stack = await retentionStack();
    await Class.create(stack, 'Log', 'class', '', { text: { type: 'string' } });
    await expectRefused(stack.jobs.define({ name: 'x', handler: RETENTION_SWEEP, params: { className: 'Log', olderThanDays: -1 } }), 'DS_JOB_INVALID', 'params.olderThanDays');
    await expectRefused(stack.jobs.define({ name: 'x', handler: RETENTION_SWEEP, params: { className: 'Log', mode: 'shred' } }), 'DS_JOB_INVALID', 'params.mode');
    await expectRefused(stack.jobs.define({ name: 'x', handler: RETENTION_SWEEP, params: { className: 'Log', batchSize: 0 } }), 'DS_JOB_INVALID', 'params.batchSize');
    await expectRefused(stack.jobs.define({ name: 'x', handler: RETENTION_SWEEP, params: { className: 'class' } }), 'DS_JOB_INVALID', 'params.className');
    await expectRefused(stack.jobs.define({ name: 'x', handler: RETENTION_SWEEP, params: { table: 'Log' } }), 'DS_JOB_INVALID', 'params.table');
    expect(await stack.jobs.list()).toEqual([]);

    // className may come from the run (a trigger's params); without it the run is refused
    await stack.jobs.define({ name: 'flexible', handler: RETENTION_SWEEP, params: { olderThanDays: 30 } });
    await expectRefused(stack.jobs.run('flexible'), 'DS_JOB_INVALID', 'params.className');
    expect(await stack.jobs.runs('flexible')).toEqual([]);
    expect((await stack.jobs.run('flexible', { className: 'Log' })).status).toBe('SUCCESS');
    // a class that does not exist fails the run (recorded), it is not refused up front
    expect(await stack.jobs.run('flexible', { className: 'Nope' })).toMatchObject({ status: 'FAILURE', errorCode: 'DS_CLASS_NOT_FOUND' });
  });

  it('stops between batches when its signal aborts (timeout)', async () => {
    // the sweep under a handler of our own, to know when it has really stopped
    let sweeping: Promise<unknown> | undefined;
    const watched = definePlugin({
      name: 'watched-sweep',
      requires: ['retention'],
      setup: (kernel) => registerJobHandler(kernel, 'watched.sweep', (context) => (sweeping = sweep(context))),
    });
    const stack = await memoryStack({ plugins: [...browserWithout('jobs', 'retention'), [jobsPlugin, { scheduler: false }], retentionPlugin, watched] });
    await seedLogs(stack, 10);
    await stack.jobs.define({ name: 'prune', handler: 'watched.sweep', timeout: 1000, params: { className: 'Log', olderThanDays: 30, batchSize: 1 } });
    // the timeout is a fake timer: it fires when the first batch is stored, not when the machine says
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const firstBatch = new Promise<void>((resolve) => {
        const listener = (change: { className: string }) => {
          if (change.className !== 'Log') return;
          stack.off('change', listener);
          resolve();
        };
        stack.on('change', listener);
      });
      const running = stack.jobs.run('prune');
      await firstBatch;
      vi.advanceTimersByTime(1000);
      expect((await running).status).toBe('TIMEOUT');
      // whatever batch was under way when the signal aborted finishes; no more start after it
      const ended = await sweeping!.then(() => 'finished', (err: unknown) => err);
      expect(ended).toMatchObject({ code: 'DS_JOB_TIMEOUT' }); // it stopped at a throwIfAborted
      expect((await stack.findDocuments('Log')).length).toBeGreaterThanOrEqual(8);
    } finally {
      vi.useRealTimers();
    }
  });

  it('requires the jobs plugin', async () => {
    await expectRefused(createStack({ name: uniqueName(), adapter: 'memory', plugins: [...browserWithout('jobs', 'retention'), retentionPlugin] }), 'DS_PLUGIN_MISSING_REQUIREMENT');
  });
});
