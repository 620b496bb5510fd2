import type { ClientStack, Doc } from '../../index.js';
/** Types and constants shared by the files of the jobs plugin (and by job plugins). */

export const JOB_CLASS = '~Job';
export const RUN_CLASS = '~JobRun';

export const JOB_PLATFORMS = ['client', 'server', 'any'] as const;
export type JobPlatform = (typeof JOB_PLATFORMS)[number];

export const RUN_STATUSES = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILURE', 'TIMEOUT', 'SKIPPED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The statuses a run ends in. */
export type FinalStatus = Exclude<RunStatus, 'PENDING' | 'RUNNING'>;

export const RUN_TRIGGERS = ['schedule', 'manual', 'event'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** What a caller gives to `stack.jobs.define` (everything but name and handler is optional). */
export interface JobInput {
  name: string;
  handler: string;
  /** cron syntax, 5 fields (minute precision) or 6 (with seconds first), in the process's local time */
  schedule?: string;
  params?: Record<string, unknown>;
  singleton?: boolean;
  enabled?: boolean;
  platform?: JobPlatform;
  /** ms per attempt; none = no limit */
  timeout?: number;
  retries?: number;
  /** base of the exponential backoff between attempts, in ms */
  backoffMs?: number;
  description?: string;
}

/** Changes to a job: `null` clears an optional field; `name` may be repeated, never changed. */
export type JobChanges = { [K in keyof JobInput]?: JobInput[K] | null };

/** A job model after checks and defaults: what is stored in a `~Job` document. */
export interface JobModel extends Required<Omit<JobInput, 'schedule' | 'timeout' | 'description'>> {
  schedule?: string;
  timeout?: number;
  description?: string;
}

/** A stored `~Job` document. */
export type JobDoc = Doc & JobModel;

/** A stored `~JobRun` document: one attempt of one run of a job. */
export type JobRunDoc = Doc & {
  job: string;
  status: RunStatus;
  trigger: RunTrigger;
  /** 1 for the first attempt, 2 for the first retry… */
  attempt: number;
  /** the id of attempt 1's record, on the records of later attempts */
  retryOf?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: string;
  /** the DocstackError code of the failure, where there is one (DS_JOB_TIMEOUT, DS_STACK_CLOSED…) */
  errorCode?: string;
  scheduledFor?: string;
  startedAt?: string;
  finishedAt?: string;
  durationMs?: number;
};

/** What a handler receives for one attempt. */
export interface JobContext {
  stack: ClientStack;
  /** the `~Job` document as it was when the run started */
  job: JobDoc;
  /** this attempt's `~JobRun` record (status RUNNING) */
  run: JobRunDoc;
  /** the job's params with the run's params merged over them */
  params: Record<string, unknown>;
  /** aborted when the attempt times out or the stack gives up waiting at close; stop work then */
  signal: AbortSignal;
  /** pass as `{ depth }` on the writes the handler makes (0 for scheduled and manual runs) */
  depth: number;
}

/** A job handler: code registered by a plugin. Its resolved value becomes the run's `result`. */
export type JobHandler = (context: JobContext) => Promise<unknown> | unknown;

export interface HandlerOptions {
  /**
   * Checks params and throws (a DocstackError, ideally DS_JOB_INVALID) to refuse them. Called
   * with a job's own params when it is defined or updated (`phase: 'define'`: some params may
   * still come from the run), and with the merged params before each run (`phase: 'run'`).
   */
  checkParams?(params: Record<string, unknown>, phase: 'define' | 'run', stack: ClientStack): void | Promise<void>;
  description?: string;
}

export interface RunOptions {
  trigger?: 'manual' | 'event';
  /** write depth handed to the handler (the triggers plugin passes its own depth + 1) */
  depth?: number;
}

export interface RunsOptions {
  /** newest first, at most this many (default 100) */
  limit?: number;
}

/** The `stack.jobs` API. */
export interface JobsApi {
  define(model: JobInput): Promise<JobDoc>;
  /** `null` clears an optional field (`schedule: null` unschedules the job); the name cannot change */
  update(name: string, changes: JobChanges): Promise<JobDoc>;
  /** Deactivates the job (its runs stay); the name can be defined again. */
  remove(name: string): Promise<void>;
  get(name: string): Promise<JobDoc | null>;
  list(): Promise<JobDoc[]>;
  /** Run records, newest first: of one job, or of every job. */
  runs(name?: string, options?: RunsOptions): Promise<JobRunDoc[]>;
  /** Runs the job now; resolves with the record of its last attempt (SUCCESS, FAILURE, TIMEOUT or SKIPPED). */
  run(name: string, params?: Record<string, unknown>, options?: RunOptions): Promise<JobRunDoc>;
  /** Names of the handlers registered on this stack. */
  handlers(): string[];
}

/** Payload of the stack event `job:started`. */
export interface JobStartedEvent {
  job: string;
  runId: string;
  trigger: RunTrigger;
  attempt: number;
}

/** Payload of the stack event `job:tick`: the scheduler finished a look at the job list. */
export interface JobTickEvent {
  /** the time of the look, on the stack's clock (ISO) */
  at: string;
  /** names of the jobs whose scheduled run it started (usually none) */
  started: string[];
}

/** Payload of the stack event `job:finished`. */
export interface JobFinishedEvent extends JobStartedEvent {
  status: FinalStatus;
  durationMs: number;
  error?: string;
  /** true when another attempt follows (after the backoff) */
  willRetry: boolean;
}
