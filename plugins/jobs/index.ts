import { createJobsApi } from './api.js';
import { ensureJobClasses } from './classes.js';
import { createHandlerRegistry } from './handlers.js';
import { JobStore } from './job-store.js';
import { JobLocks } from './lock.js';
import { RunStore } from './run-store.js';
import { JobRunner } from './runner.js';
import { Scheduler } from './scheduler.js';
import { jobErrorList } from './errors.js';
import type { JobsApi } from './types.js';
import { definePlugin, KERNEL_ERRORS } from '../../index.js';

export { JOB_HANDLERS, JobHandlerRegistry, registerJobHandler } from './handlers.js';
export { JOB_ERRORS } from './errors.js';
export * from './types.js';

export interface JobsOptions {
  /** which jobs this stack's scheduler runs: `any` ones and its own platform's (default client) */
  platform?: 'client' | 'server';
  /** run scheduled jobs (default true); false leaves only manual and event runs */
  scheduler?: boolean;
  /** how long close waits for running jobs before aborting them (default 5000 ms) */
  closeTimeoutMs?: number;
  /** longest gap between two looks at the job list (default 1000 ms) */
  tickMs?: number;
}

/** After the kernel's own onOpen work and the ephemeral purge (stage -50). */
const OPEN_STAGE = 10;
/** Before other plugins tear down what running jobs may still use. */
const CLOSE_STAGE = -100;

function resolveOptions(options: JobsOptions | undefined): Required<JobsOptions> {
  const o = options ?? {};
  const refuse = (key: string, expected: string): never => {
    throw KERNEL_ERRORS.stackOptionsInvalid(`The jobs plugin option "${key}" must be ${expected}.`, { path: `jobs.${key}` });
  };
  if (o.platform !== undefined && o.platform !== 'client' && o.platform !== 'server') refuse('platform', '"client" or "server"');
  if (o.scheduler !== undefined && typeof o.scheduler !== 'boolean') refuse('scheduler', 'true or false');
  if (o.closeTimeoutMs !== undefined && (!Number.isInteger(o.closeTimeoutMs) || o.closeTimeoutMs < 0)) refuse('closeTimeoutMs', 'a whole number ≥ 0');
  if (o.tickMs !== undefined && (!Number.isInteger(o.tickMs) || o.tickMs < 10)) refuse('tickMs', 'a whole number ≥ 10');
  return { platform: o.platform ?? 'client', scheduler: o.scheduler ?? true, closeTimeoutMs: o.closeTimeoutMs ?? 5000, tickMs: o.tickMs ?? 1000 };
}

/**
 * Jobs: `~Job` documents naming a handler registered in code, run by hand (`stack.jobs.run`),
 * by triggers, or by a cron schedule; every attempt recorded as a `~JobRun`. See docs/jobs.md.
 */
export const jobsPlugin = definePlugin({
  name: 'jobs',
  requires: ['validation'],
  errors: jobErrorList,
  setup(kernel, pluginOptions: JobsOptions | undefined): JobsApi {
    const options = resolveOptions(pluginOptions);
    const { stack, hooks } = kernel;
    const handlers = createHandlerRegistry(kernel);
    const jobs = new JobStore(stack);
    const runs = new RunStore(stack);
    const runner = new JobRunner({ stack, jobs, runs, handlers, locks: new JobLocks(stack.storage, stack.clock) });
    const scheduler = options.scheduler ? new Scheduler({ stack, jobs, runs, runner, platform: options.platform, tickMs: options.tickMs }) : null;
    const api = createJobsApi({ stack, jobs, runs, runner, handlers, changed: () => scheduler?.poke() });

    hooks.onOpen.tapPromise({ name: 'jobs', stage: OPEN_STAGE }, async (opened) => {
      await ensureJobClasses(opened);
      scheduler?.start(); // its first look waits until the stack has finished opening
    });
    hooks.onClose.tapPromise({ name: 'jobs', stage: CLOSE_STAGE }, async () => {
      scheduler?.stop();
      await runner.close(options.closeTimeoutMs);
    });
    // also after a failed open, where onClose never runs
    stack.once('closed', () => {
      scheduler?.stop();
      runner.abandon();
    });
    return api;
  },
  /** `stack.jobs`: the specification's jobs API on the stack object. */
  members: (api) => ({ jobs: api }),
});
