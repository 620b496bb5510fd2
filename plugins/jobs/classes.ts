import { DEFAULT_BACKOFF_MS, MAX_DELAY_MS, MAX_RETRIES } from './model.js';
import { JOB_CLASS, JOB_PLATFORMS, RUN_CLASS, RUN_STATUSES, RUN_TRIGGERS } from './types.js';
import { Class, type ClientStack } from '../../index.js';

/**
 * The system classes of the jobs plugin. Jobs and runs are ordinary documents: they replicate,
 * are validated by the pipeline, emit `change` events and can be swept by the retention job.
 * The plugin checks job models itself first (model.ts) so refusals carry DS_JOB_* codes; the
 * schema is the second line, for documents that arrive by other routes.
 */
const JOB_SCHEMA: Record<string, Record<string, unknown>> = {
  name: { type: 'string', primaryKey: true, maxLength: 100, description: 'unique job name' },
  handler: { type: 'string', mandatory: true, description: 'name of a handler registered by a plugin' },
  schedule: { type: 'string', description: 'cron pattern (5 fields, or 6 with seconds)' },
  params: { type: 'object', defaultValue: {}, description: 'handed to the handler; run params are merged over them' },
  singleton: { type: 'boolean', defaultValue: false, description: 'never runs twice at the same time' },
  enabled: { type: 'boolean', defaultValue: true },
  platform: { type: 'enum', values: [...JOB_PLATFORMS], defaultValue: 'any', description: 'where the scheduler runs it' },
  timeout: { type: 'integer', min: 1, max: MAX_DELAY_MS, description: 'ms per attempt' },
  retries: { type: 'integer', min: 0, max: MAX_RETRIES, defaultValue: 0 },
  backoffMs: { type: 'integer', min: 0, max: MAX_DELAY_MS, defaultValue: DEFAULT_BACKOFF_MS, description: 'base of the exponential backoff' },
  description: { type: 'string' },
};

const RUN_SCHEMA: Record<string, Record<string, unknown>> = {
  job: { type: 'string', mandatory: true, description: 'the job name' },
  status: { type: 'enum', values: [...RUN_STATUSES], mandatory: true },
  trigger: { type: 'enum', values: [...RUN_TRIGGERS], mandatory: true },
  attempt: { type: 'integer', min: 1, mandatory: true },
  retryOf: { type: 'string', description: 'id of the first attempt of this run' },
  params: { type: 'object' },
  result: { type: 'object' },
  error: { type: 'string' },
  errorCode: { type: 'string' },
  scheduledFor: { type: 'date', format: 'date-time' },
  startedAt: { type: 'date', format: 'date-time' },
  finishedAt: { type: 'date', format: 'date-time' },
  durationMs: { type: 'integer', min: 0 },
};

/** Makes sure both classes exist (concurrent openers of one store end up with one of each). */
export async function ensureJobClasses(stack: ClientStack): Promise<void> {
  await Class.ensure(stack, JOB_CLASS, 'Jobs: handler, schedule and run policy (plugins/jobs)', JOB_SCHEMA);
  await Class.ensure(stack, RUN_CLASS, 'Job runs: one record per attempt (plugins/jobs)', RUN_SCHEMA);
}
