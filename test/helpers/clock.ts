import type { Clock } from '../../index.js';

/** A clock that stands still until a test moves it: lifetimes pass without waiting. */
export class ManualClock implements Clock {
  constructor(private time = Date.now()) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }

  set(ms: number): void {
    this.time = ms;
  }
}
