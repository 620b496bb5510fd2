import type { JobContext, JobHandler } from './types.js';
import { DocstackError } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { JOB_ERRORS } from './errors.js';

export interface Outcome {
  status: 'SUCCESS' | 'FAILURE' | 'TIMEOUT';
  result?: Record<string, unknown>;
  error?: string;
  errorCode?: string;
}

/** A handler's value as a run `result`: JSON, an object (anything else wrapped as `{ value }`). */
export function toResult(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const json: unknown = JSON.parse(JSON.stringify(value) ?? 'null');
  return isPlainObject(json) ? json : { value: json };
}

export function failure(err: unknown): Outcome {
  const code = (err as { code?: unknown } | null)?.code;
  return {
    status: err instanceof DocstackError && err.code === 'DS_JOB_TIMEOUT' ? 'TIMEOUT' : 'FAILURE',
    error: err instanceof Error ? err.message : String(err),
    ...(typeof code === 'string' ? { errorCode: code } : {}),
  };
}

/**
 * Runs one attempt of a handler. The attempt ends at the first of: the handler settles, the
 * timeout passes, or `stop` aborts (the stack gave up waiting at close). On a timeout or a stop
 * the handler's signal is aborted with the reason and its late result is ignored: the outcome
 * is decided the moment the signal aborts, whatever the handler does afterwards.
 */
export async function execute(handler: JobHandler, context: Omit<JobContext, 'signal'>, timeoutMs: number | undefined, stop: AbortSignal): Promise<Outcome> {
  const controller = new AbortController();
  const { signal } = controller;
  // Registered before the handler sees the signal, so it resolves before any handler reaction.
  const aborted = new Promise<Outcome>((resolve) => signal.addEventListener('abort', () => resolve(failure(signal.reason)), { once: true }));
  const onStop = () => controller.abort(stop.reason);
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          const job = context.job.name;
          controller.abort(JOB_ERRORS.jobTimeout(`The job "${job}" ran longer than its timeout of ${timeoutMs} ms.`, { details: { job, timeoutMs } }));
        }, timeoutMs);

  const work = (async (): Promise<Outcome> => {
    try {
      const value = await handler({ ...context, signal });
      return { status: 'SUCCESS', ...(value === undefined ? {} : { result: toResult(value) }) };
    } catch (err) {
      return failure(err);
    }
  })();
  try {
    const outcome = await Promise.race([work, aborted]);
    return signal.aborted ? failure(signal.reason) : outcome;
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}
