import { execute, failure, type Outcome } from './execute.js';
import type { JobHandlerRegistry } from './handlers.js';
import type { JobStore } from './job-store.js';
import type { JobLocks, Lease } from './lock.js';
import { checkParams, MAX_DELAY_MS } from './model.js';
import type { RunStore } from './run-store.js';
import type { FinalStatus, JobDoc, JobFinishedEvent, JobRunDoc, JobStartedEvent, RunTrigger } from './types.js';
import { KERNEL_ERRORS, type ClientStack } from '../../index.js';
import { nowIso } from '../../kit/index.js';

export interface RunRequest {
  trigger: RunTrigger;
  /** merged over the job's params */
  params?: Record<string, unknown>;
  /** the schedule slot a scheduled run stands for */
  scheduledFor?: Date;
  depth?: number;
}

interface RunnerDeps {
  stack: ClientStack;
  jobs: JobStore;
  runs: RunStore;
  handlers: JobHandlerRegistry;
  locks: JobLocks;
}

/** If a handler still has not settled this long after its signal aborted at close, close goes on. */
const ABORT_GRACE_MS = 1000;

/** Failures a retry cannot mend: the job's set-up is wrong, or the stack is closing. */
const NOT_RETRIED = new Set(['DS_HANDLER_UNKNOWN', 'DS_JOB_INVALID', 'DS_STACK_CLOSED']);

/** Delay before attempt `attempt + 1`: backoffMs, then twice that, four times… */
export function backoffDelay(backoffMs: number, attempt: number): number {
  return Math.min(backoffMs * 2 ** (attempt - 1), MAX_DELAY_MS);
}

/**
 * Runs jobs: one `~JobRun` record per attempt, PENDING → RUNNING → SUCCESS | FAILURE | TIMEOUT,
 * or PENDING → SKIPPED when a singleton is already running. Attempts of one run are chained:
 * each later record names the first in `retryOf`. Every run in flight is tracked so close can
 * wait for it.
 */
export class JobRunner {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** singleton jobs running in this stack: checked and marked synchronously, so no race here */
  private readonly held = new Set<string>();
  /** aborted when close stops waiting: every attempt's signal follows it */
  private readonly stop = new AbortController();
  /** wakes backoff waits early at close */
  private readonly wakers = new Set<() => void>();
  private closing = false;

  constructor(private readonly deps: RunnerDeps) {}

  run(job: JobDoc, request: RunRequest): Promise<JobRunDoc> {
    if (this.closing) return Promise.reject(KERNEL_ERRORS.stackClosed(`The stack "${this.deps.stack.name}" is closing; the job "${job.name}" was not started.`));
    const chain = this.runAttempts(job, request);
    this.inFlight.add(chain);
    const forget = () => this.inFlight.delete(chain);
    chain.then(forget, forget);
    return chain;
  }

  private async runAttempts(job: JobDoc, request: RunRequest): Promise<JobRunDoc> {
    const { runs, locks } = this.deps;
    const params = { ...structuredClone(job.params ?? {}), ...structuredClone(request.params ?? {}) };
    let run = await runs.create({
      job: job.name,
      status: 'PENDING',
      trigger: request.trigger,
      attempt: 1,
      params,
      ...(request.scheduledFor ? { scheduledFor: request.scheduledFor.toISOString() } : {}),
    });
    let lease: Lease | null = null;
    const holding = job.singleton; // as it was when the run began, whatever updates come later
    if (holding) {
      if (this.held.has(job.name)) return this.skip(run, `The singleton job "${job.name}" is already running in this stack.`);
      this.held.add(job.name);
      try {
        lease = await locks.acquire(job.name, run._id);
      } catch (err) {
        this.held.delete(job.name);
        throw err;
      }
      if (!lease) {
        this.held.delete(job.name);
        return this.skip(run, `The singleton job "${job.name}" is already running in another instance of this store.`);
      }
    }
    try {
      const first = run._id;
      for (let attempt = 1; ; attempt++) {
        const willRetry = (outcome: Outcome) =>
          outcome.status !== 'SUCCESS' && !NOT_RETRIED.has(outcome.errorCode ?? '') && attempt <= job.retries && !this.closing;
        const { finished, retry } = await this.attempt(job, run, params, request, willRetry);
        if (!retry) return finished;
        const due = this.deps.stack.clock.now() + backoffDelay(job.backoffMs, attempt);
        await this.sleepUntil(due);
        // stopped meanwhile: closing, or the job was disabled or removed during the backoff
        const current = this.closing ? null : await this.deps.jobs.find(job.name);
        if (!current || current._id !== job._id || current.enabled === false) return finished;
        job = current;
        run = await runs.create({
          job: job.name,
          status: 'PENDING',
          trigger: request.trigger,
          attempt: attempt + 1,
          retryOf: first,
          params,
          scheduledFor: new Date(due).toISOString(),
        });
      }
    } finally {
      if (holding) this.held.delete(job.name);
      await lease?.release();
    }
  }

  private async skip(run: JobRunDoc, reason: string): Promise<JobRunDoc> {
    const now = nowIso(this.deps.stack.clock);
    const skipped = await this.deps.runs.save(run, { status: 'SKIPPED', error: reason, finishedAt: now, durationMs: 0 });
    this.emitFinished(skipped, 'SKIPPED', 0, false, reason);
    return skipped;
  }

  private async attempt(
    job: JobDoc,
    pending: JobRunDoc,
    params: Record<string, unknown>,
    request: RunRequest,
    willRetry: (outcome: Outcome) => boolean,
  ): Promise<{ finished: JobRunDoc; retry: boolean }> {
    const { runs } = this.deps;
    const startedAt = new Date(this.deps.stack.clock.now());
    const run = await runs.save(pending, { status: 'RUNNING', startedAt: startedAt.toISOString() });
    this.emit('job:started', { job: job.name, runId: run._id, trigger: run.trigger, attempt: run.attempt } satisfies JobStartedEvent);

    const outcome = await this.outcomeOf(job, run, params, request);
    const finishedAt = new Date(this.deps.stack.clock.now());
    const durationMs = Math.max(0, finishedAt.getTime() - startedAt.getTime());
    const finished = await runs.save(run, {
      status: outcome.status,
      finishedAt: finishedAt.toISOString(),
      durationMs,
      ...(outcome.result ? { result: outcome.result } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(outcome.errorCode !== undefined ? { errorCode: outcome.errorCode } : {}),
    });
    const retry = willRetry(outcome);
    this.emitFinished(finished, outcome.status, durationMs, retry, outcome.error);
    return { finished, retry };
  }

  private async outcomeOf(job: JobDoc, run: JobRunDoc, params: Record<string, unknown>, request: RunRequest): Promise<Outcome> {
    const { stack, handlers } = this.deps;
    try {
      // a scheduled job may name a handler this stack lacks (defined elsewhere): a recorded failure
      const handler = handlers.require(job.handler, { path: 'handler' });
      await checkParams(handlers.options(job.handler)?.checkParams, params, 'run', stack);
      return await execute(handler, { stack, job, run, params, depth: request.depth ?? 0 }, job.timeout, this.stop.signal);
    } catch (err) {
      return failure(err);
    }
  }

  private emitFinished(run: JobRunDoc, status: FinalStatus, durationMs: number, willRetry: boolean, error?: string): void {
    const event: JobFinishedEvent = { job: run.job, runId: run._id, trigger: run.trigger, attempt: run.attempt, status, durationMs, willRetry };
    if (error !== undefined) event.error = error;
    this.emit('job:finished', event);
  }

  /** A throwing listener is the listener's problem; it must not leave a run half-recorded. */
  private emit(name: string, payload: unknown): void {
    try {
      this.deps.stack.emit(name, payload);
    } catch {
      // see docs/events.md: listeners wrap their own code
    }
  }

  private sleepUntil(due: number): Promise<void> {
    // close may have begun between the attempt's end and this wait: then there is nothing to wake
    if (this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      // the delay is the clock's distance to the due time; the timer itself is a real one
      const timer = setTimeout(wake, Math.max(0, due - this.deps.stack.clock.now()));
      this.wakers.add(wake);
    });
  }

  /** No new runs, and retries waiting for their backoff give up now. */
  private beginClosing(): void {
    this.closing = true;
    for (const wake of [...this.wakers]) wake();
  }

  /**
   * Close: no new runs, no more retries; wait for the runs in flight up to `timeoutMs`, then
   * abort their signals and give them a short grace to record how they ended.
   */
  async close(timeoutMs: number): Promise<void> {
    this.beginClosing();
    const settled = Promise.allSettled([...this.inFlight]);
    if (await within(settled, timeoutMs)) return;
    this.stop.abort(KERNEL_ERRORS.stackClosed(`The stack "${this.deps.stack.name}" closed while the job was running.`));
    await within(settled, ABORT_GRACE_MS);
  }

  /** After the stack closed (also when opening failed half-way): abort whatever is left. */
  abandon(): void {
    this.beginClosing();
    if (!this.stop.signal.aborted) this.stop.abort(KERNEL_ERRORS.stackClosed(`The stack "${this.deps.stack.name}" is closed.`));
  }
}

/** Whether the promise settles within ms. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
