import type { Cron } from 'croner';
import { parseSchedule } from './cron.js';
import type { JobStore } from './job-store.js';
import type { RunStore } from './run-store.js';
import type { JobRunner } from './runner.js';
import type { JobDoc, JobTickEvent } from './types.js';
import type { ClientStack } from '../../index.js';

export interface SchedulerDeps {
  stack: ClientStack;
  jobs: JobStore;
  runs: RunStore;
  runner: JobRunner;
  /** the plugin's platform: jobs for `any` or for this platform are scheduled here */
  platform: 'client' | 'server';
  /** longest sleep between two looks at the job list (picks up jobs written by other instances) */
  tickMs: number;
}

interface Slot {
  jobId: string;
  schedule: string;
  cron: Cron;
  /** the next due time, or null if the schedule never fires again */
  due: Date | null;
}

/** Shortest re-arm, so a timer that fires a hair early does not spin. */
const MIN_DELAY_MS = 5;

/**
 * Starts scheduled jobs when they are due. One timer per stack, armed for the earliest due
 * time (at most `tickMs` away); croner computes due times, the scheduler never parses cron.
 *
 * Catch-up: when a job is first seen (on start, or when defined), its next due time is
 * computed from its anchor — the newest scheduled run's creation, or the job's last change if
 * later. If that time has passed (the stack was closed through one or more slots), the job runs
 * once now; its next due time is then computed from now, so missed slots are never replayed
 * one by one.
 */
export class Scheduler {
  private readonly slots = new Map<string, Slot>();
  private jobs: JobDoc[] | null = null;
  private loadedAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ticking = false;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    this.arm(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The job list changed here: look again now rather than at the next tick. */
  poke(): void {
    this.jobs = null;
    if (this.ticking) this.again = true;
    else this.arm(0);
  }

  private arm(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delay);
    // a scheduler never keeps a process alive on its own (a server has its listener for that)
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    // onOpen starts the scheduler; nothing runs before the stack has finished opening
    if (!this.deps.stack.isOpen) return this.arm(20);
    this.ticking = true;
    let wait = this.deps.tickMs;
    try {
      const at = this.deps.stack.clock.now();
      const looked = await this.evaluate(at);
      wait = looked.wait;
      if (!this.stopped) this.emit({ at: new Date(at).toISOString(), started: looked.started });
    } catch {
      // storage hiccup or the stack closing under us: look again at the next tick
    } finally {
      this.ticking = false;
    }
    if (this.again) {
      this.again = false;
      wait = 0;
    }
    this.arm(wait);
  }

  /** `job:tick`: a look is over (tests wait for it rather than for time to pass). */
  private emit(event: JobTickEvent): void {
    try {
      this.deps.stack.emit('job:tick', event);
    } catch {
      // see docs/events.md: listeners wrap their own code
    }
  }

  /** Fires what is due; returns how long to sleep before the next look, and the jobs started. */
  private async evaluate(now: number): Promise<{ wait: number; started: string[] }> {
    const { tickMs } = this.deps;
    const started: string[] = [];
    if (!this.jobs || now - this.loadedAt >= tickMs) {
      this.jobs = await this.deps.jobs.list();
      this.loadedAt = now;
    }
    const seen = new Set<string>();
    let earliest = now + tickMs;
    for (const job of this.jobs) {
      if (!this.isMine(job)) continue;
      seen.add(job.name);
      const slot = await this.slotFor(job, now);
      if (!slot?.due) continue;
      if (slot.due.getTime() <= now) {
        const scheduledFor = slot.due;
        slot.due = slot.cron.nextRun(new Date(now));
        if (this.stopped) return { wait: tickMs, started };
        // the outcome is on the run record; a run that cannot even be recorded has nowhere to go
        this.deps.runner.run(job, { trigger: 'schedule', scheduledFor }).catch(() => undefined);
        started.push(job.name);
      }
      if (slot.due) earliest = Math.min(earliest, slot.due.getTime());
    }
    for (const name of this.slots.keys()) if (!seen.has(name)) this.slots.delete(name);
    return { wait: Math.max(MIN_DELAY_MS, earliest - this.deps.stack.clock.now()), started };
  }

  private isMine(job: JobDoc): boolean {
    const platformOk = job.platform === undefined || job.platform === 'any' || job.platform === this.deps.platform;
    return typeof job.schedule === 'string' && job.enabled !== false && platformOk;
  }

  private async slotFor(job: JobDoc, now: number): Promise<Slot | null> {
    const known = this.slots.get(job.name);
    if (known && known.jobId === job._id && known.schedule === job.schedule) return known;
    let cron: Cron;
    try {
      cron = parseSchedule(job.schedule);
    } catch {
      return null; // a bad pattern that arrived by replication: the API refuses them here
    }
    // a new schedule on a known job counts from now; a newly seen job from its anchor (catch-up)
    const from = known && known.jobId === job._id ? new Date(now) : await this.anchorOf(job);
    const slot: Slot = { jobId: job._id, schedule: job.schedule!, cron, due: cron.nextRun(from) };
    this.slots.set(job.name, slot);
    return slot;
  }

  /** The time from which the job's schedule is counted: its newest scheduled run, or its last change. */
  private async anchorOf(job: JobDoc): Promise<Date> {
    const changed = Date.parse(job['~updateTimestamp'] ?? job['~createTimestamp']);
    const last = await this.deps.runs.latestScheduled(job.name);
    const ran = last ? Date.parse(last['~createTimestamp']) : Number.NaN;
    const anchor = Math.max(Number.isNaN(changed) ? 0 : changed, Number.isNaN(ran) ? 0 : ran);
    return new Date(anchor || this.deps.stack.clock.now());
  }
}
