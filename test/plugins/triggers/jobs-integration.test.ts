import { expect, it, vi } from 'vitest';
import { Class, definePlugin } from '../../../index.js';
import { addTrigger } from '../../../plugins/triggers/index.js';
import { registerJobHandler } from '../../../plugins/jobs/index.js';
import type { TriggerFailedEvent } from '../../../plugins/triggers/index.js';
import { browserWithout, memoryStack } from '../../helpers/stack.js';

it('an after-trigger starts a real job (trigger kind event), and a disabled job is reported as a trigger failure', async () => {
  const seen: { params: Record<string, unknown>; depth: number }[] = [];
  const handlers = definePlugin({
    name: 'job-handlers',
    requires: ['jobs'],
    setup(kernel) {
      registerJobHandler(kernel, 'note', async (c) => {
        seen.push({ params: c.params, depth: c.depth });
        await c.stack.createDoc({ '~class': 'Log', what: String(c.params.docId) }, { depth: c.depth });
        return { ok: true };
      });
    },
  });
  // the browser preset (with the real jobs and triggers plugins), scheduler running as in an app
  const stack = await memoryStack({ plugins: [...browserWithout(), handlers] });
  const failures: TriggerFailedEvent[] = [];
  stack.on('trigger:failed', (e: TriggerFailedEvent) => failures.push(e));
  await Class.create(stack, 'Log', 'class', '', { what: { type: 'string' } });
  const tasks = await Class.create(stack, 'Task', 'class', '', { title: { type: 'string' } });
  await stack.jobs.define({ name: 'noteit', handler: 'note', params: { a: 1 } });
  await stack.jobs.define({ name: 'off', handler: 'note', enabled: false });
  await addTrigger(tasks, { name: 't', when: 'after', on: ['create'], job: 'noteit', params: { b: 2 } });
  await addTrigger(tasks, { name: 'u', when: 'after', on: ['create'], job: 'off' });
  const doc = await stack.createDoc({ '~class': 'Task', title: 'x' });
  await vi.waitFor(async () => expect(await stack.findDocuments('Log')).toHaveLength(1));
  await vi.waitFor(() => expect(failures).toHaveLength(1));
  expect(seen).toEqual([{ params: { a: 1, b: 2, docId: doc._id, className: 'Task', op: 'create' }, depth: 1 }]);
  expect(failures[0]).toMatchObject({ trigger: 'u', code: 'DS_JOB_DISABLED' });
  await vi.waitFor(async () => expect((await stack.jobs.runs('noteit')).map((r) => [r.status, r.trigger])).toEqual([['SUCCESS', 'event']]));
});
