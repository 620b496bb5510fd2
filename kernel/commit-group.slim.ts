import { storeLocked, type Unit, type UnitDeps } from './unit-of-work.js';

/**
 * The slim bundle's stand-in for ./commit-group.ts (scripts/build-browser.mjs swaps it in): each
 * write takes the store's lock and is stored alone, as when no other write is waiting. Group
 * commit only saves storage calls for concurrent writers; the slim preset trades that for size.
 */
export class CommitGroup {
  constructor(private readonly deps: UnitDeps) {}

  submit(unit: Unit): Promise<void> {
    return this.deps.lock(() => storeLocked(this.deps, unit));
  }
}
