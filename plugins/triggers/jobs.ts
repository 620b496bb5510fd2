import { jobsPlugin } from '../jobs/index.js';
import type { TriggerModel } from './types.js';
import { KERNEL_ERRORS, type ClientStack, DocstackError, getApi, type WriteContext } from '../../index.js';

/** The jobs plugin's API when this stack loads it (triggers list jobs as optional). */
function jobsOf(stack: ClientStack) {
  return getApi(stack, jobsPlugin);
}

/** DS_HANDLER_UNKNOWN, like a trigger naming a handler this stack lacks: the code it names cannot run here. */
function unknownJob(trigger: string, job: string, why: string): DocstackError {
  return KERNEL_ERRORS.handlerUnknown(`The trigger "${trigger}" starts the job "${job}", but ${why}.`, {
    path: 'job',
    details: { kind: 'job', trigger, job },
  });
}

/** Refuses a job trigger whose job cannot be found now (no jobs plugin, or no such job). */
export async function requireJob(stack: ClientStack, trigger: string, job: string): Promise<void> {
  const jobs = jobsOf(stack);
  if (!jobs) throw unknownJob(trigger, job, 'this stack does not load the jobs plugin');
  let found: unknown;
  try {
    found = await jobs.get(job);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'DS_JOB_NOT_FOUND') found = null;
    else throw err;
  }
  if (found === null || found === undefined) throw unknownJob(trigger, job, 'there is no job of that name');
}

/**
 * Starts the trigger's job and returns at once: the caller's write must not wait for a job
 * (it may run for minutes, with retries). A start that fails (no jobs plugin, an unknown or
 * disabled job) is handed to `onFailure` whenever it is known. What the job then does is the
 * jobs plugin's to record (its run records), not a trigger failure.
 */
export function startJob(
  stack: ClientStack,
  trigger: TriggerModel & { job: string },
  docId: string,
  ctx: WriteContext,
  onFailure: (err: unknown) => Promise<void>,
): void {
  const jobs = jobsOf(stack);
  if (!jobs) throw unknownJob(trigger.name, trigger.job, 'this stack does not load the jobs plugin');
  const params = { ...structuredClone(trigger.params), docId, className: ctx.classModel.name, op: ctx.op };
  // through a promise, so a run() that throws synchronously is reported like one that rejects;
  // the depth lets the job's own writes count towards the limit, like a handler's writes
  void Promise.resolve()
    .then(() => jobs.run(trigger.job, params, { trigger: 'event', depth: ctx.depth + 1 }))
    .then(undefined, onFailure);
}
