import type { JobHandlerRegistry } from './handlers.js';
import { exists, type JobStore } from './job-store.js';
import { checkJobName, checkParams, normalizeJob } from './model.js';
import type { RunStore } from './run-store.js';
import type { JobRunner } from './runner.js';
import type { JobDoc, JobsApi, RunOptions } from './types.js';
import { KERNEL_ERRORS, type ClientStack } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { JOB_ERRORS } from './errors.js';

export interface ApiDeps {
  stack: ClientStack;
  jobs: JobStore;
  runs: RunStore;
  runner: JobRunner;
  handlers: JobHandlerRegistry;
  /** tells the scheduler the job list changed (no-op without a scheduler) */
  changed(): void;
}

const MANUAL_TRIGGERS = ['manual', 'event'];

/** The fields of a stored job that make up its model (system fields left out). */
function modelOf(job: JobDoc): Record<string, unknown> {
  const { name, handler, schedule, params, singleton, enabled, platform, timeout, retries, backoffMs, description } = job;
  return { name, handler, schedule, params, singleton, enabled, platform, timeout, retries, backoffMs, description };
}

/** `stack.jobs`: every refusal is a DocstackError with a DS_JOB_* code, and stores nothing. */
export function createJobsApi(deps: ApiDeps): JobsApi {
  const { stack, jobs, runs, runner, handlers, changed } = deps;
  return Object.freeze({
    async define(model) {
      const normalized = await normalizeJob(model, handlers, stack);
      if (await jobs.find(normalized.name)) throw exists(normalized.name);
      const job = await jobs.create(normalized);
      changed();
      return job;
    },

    async update(name, changes) {
      if (!isPlainObject(changes)) throw JOB_ERRORS.jobInvalid('The changes to a job are an object.', { path: '' });
      const job = await jobs.require(name);
      if (changes.name !== undefined && changes.name !== job.name) {
        throw JOB_ERRORS.jobInvalid('A job cannot be renamed; define a new one and remove this one.', { path: 'name' });
      }
      const normalized = await normalizeJob({ ...modelOf(job), ...changes }, handlers, stack);
      const updated = await jobs.replace(job, normalized);
      changed();
      return updated;
    },

    async remove(name) {
      await jobs.remove(await jobs.require(name));
      changed();
    },

    get: (name) => jobs.find(name),
    list: () => jobs.list(),

    async runs(name, options = {}) {
      if (name !== undefined) checkJobName(name);
      const limit = options.limit;
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
        throw KERNEL_ERRORS.queryInvalid(`limit must be a whole number ≥ 0 (got ${String(limit)}).`, { path: 'limit' });
      }
      return runs.list(name, limit);
    },

    async run(name, params = {}, options: RunOptions = {}) {
      if (!isPlainObject(params)) throw JOB_ERRORS.jobInvalid('Run params are an object.', { path: 'params' });
      const trigger = options.trigger ?? 'manual';
      if (!MANUAL_TRIGGERS.includes(trigger)) {
        throw JOB_ERRORS.jobInvalid(`A run started by a caller has trigger "manual" or "event" (got ${JSON.stringify(trigger)}).`, { path: 'trigger' });
      }
      const depth = options.depth ?? 0;
      if (!Number.isInteger(depth) || depth < 0) throw JOB_ERRORS.jobInvalid('depth is a whole number ≥ 0.', { path: 'depth' });
      const job = await jobs.require(name);
      if (job.enabled === false) {
        throw JOB_ERRORS.jobDisabled(`The job "${name}" is disabled; enable it with jobs.update(name, { enabled: true }).`, { details: { job: name } });
      }
      // refuse before anything is recorded: the handler exists here and takes these params
      handlers.require(job.handler, { path: 'handler' });
      await checkParams(handlers.options(job.handler)?.checkParams, { ...job.params, ...params }, 'run', stack);
      return runner.run(job, { trigger, params, depth });
    },

    handlers: () => handlers.names(),
  } satisfies JobsApi);
}
