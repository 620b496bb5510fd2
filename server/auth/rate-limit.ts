/**
 * Failed-login counters: a sliding window per key (a username, a client address) in memory.
 * An attempt takes its slot *before* its password is hashed (`take`) and counts as a failure
 * while in flight, so concurrent attempts cannot all pass the check before any of them failed;
 * a success gives its slot back (`giveBack`, or `reset` for the username).
 * Per node instance on purpose — the limiter slows down guessing; it does not need to be exact
 * across instances, and keeping it out of the database means a flood of bad logins writes nothing.
 */
export interface LimiterOptions {
  /** failures allowed inside the window; the next attempt is refused */
  max: number;
  windowMs: number;
}

/** Past this many tracked keys, expired ones are swept (an attacker rotating usernames). */
const SWEEP_AT = 10_000;

export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly options: LimiterOptions) {}

  private recent(key: string, now: number): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    const kept = list.filter((t) => now - t < this.options.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length !== list.length) this.failures.set(key, kept);
    return kept;
  }

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string, now = Date.now()): number {
    const list = this.recent(key, now);
    if (list.length < this.options.max) return 0;
    const freeAt = list[list.length - this.options.max] + this.options.windowMs;
    return Math.max(1, Math.ceil((freeAt - now) / 1000));
  }

  fail(key: string, now = Date.now()): void {
    this.take(key, now);
  }

  /** Counts an attempt now (before it is checked); returns its mark for giveBack. */
  take(key: string, now = Date.now()): number {
    if (this.failures.size >= SWEEP_AT) this.sweep(now);
    const list = this.recent(key, now);
    list.push(now);
    // a key never needs more than `max` timestamps to answer retryAfter
    this.failures.set(key, list.slice(-this.options.max));
    return now;
  }

  /** An attempt taken with `take` succeeded (or was never checked): it no longer counts. */
  giveBack(key: string, mark: number): void {
    const list = this.failures.get(key);
    const at = list?.lastIndexOf(mark) ?? -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) this.failures.delete(key);
  }

  /** Failures (and attempts in flight) of the key inside the window. */
  count(key: string, now = Date.now()): number {
    return this.recent(key, now).length;
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private sweep(now: number): void {
    for (const key of [...this.failures.keys()]) this.recent(key, now);
  }

  clear(): void {
    this.failures.clear();
  }
}
