/**
 * What time it is, in ms since the epoch. A stack reads every lifetime, grace period and due
 * time through its clock (`stack.clock`, the `clock` container key): tests move a clock of
 * their own instead of waiting, and a node can share one clock between sessions and storage.
 * Timers (`setTimeout` delays) stay real: a clock says what time it is, not when to wake up.
 */
export interface Clock {
  now(): number;
}

/** The wall clock: `Date.now()`, read at each call (so a faked `Date` is followed too). */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

