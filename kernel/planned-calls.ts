import { isPromiseLike } from '../storage/settle.js';

/**
 * Runs a write plan's hook (kernel/write-plan.ts) without tapable's `promise()` call: each tap is
 * called in order, as tapable would, and a promise appears only once a tap answers with one (a
 * `tapPromise` tap, or a `tapAsync` tap that calls back later). Every write runs its class's plan,
 * and the plugins' taps on the write path are mostly synchronous (defaults, trigger depth, a
 * foreign key already known), so `promise()` cost a promise, a closure and a microtask turn per
 * hook per document for nothing. A hook with interceptors, or a tap with tapable's `context`
 * option, goes through tapable itself.
 *
 * What a tap may observe is unchanged: the same arguments, the same order, a waterfall keeps the
 * value when a tap answers undefined, and an error (thrown, rejected or called back) stops the
 * rest. The one difference: a synchronous tap's throw is thrown, not returned as a rejection;
 * every caller runs inside an async function, where the two are the same.
 */

interface TapRecord {
  type: 'sync' | 'async' | 'promise';
  fn: (...args: unknown[]) => unknown;
  context?: boolean;
}

interface TapableHook {
  taps: TapRecord[];
  interceptors: unknown[];
  promise(...args: unknown[]): Promise<unknown>;
}

/** AsyncSeriesWaterfallHook: each tap gets the value the one before it returned (undefined keeps it). */
export function runWaterfall<T, C>(hook: object, value: T, ctx: C): T | Promise<T> {
  return run(hook as TapableHook, value, ctx, true) as T | Promise<T>;
}

/** AsyncSeriesHook: each tap in turn, answers ignored. */
export function runSeries<A, C>(hook: object, arg: A, ctx: C): void | Promise<void> {
  return run(hook as TapableHook, arg, ctx, false) as void | Promise<void>;
}

function run(hook: TapableHook, value: unknown, ctx: unknown, waterfall: boolean): unknown {
  // tapable runs a hook with interceptors, or a tap that asks for its `context`
  if (hook.interceptors.length > 0 || asksContext(hook.taps)) return hook.promise(value, ctx);
  return from(hook.taps, 0, value, ctx, waterfall);
}

/** A loop, not `some` with an arrow: this runs per hook per document, and the arrow was a closure each time. */
function asksContext(taps: readonly TapRecord[]): boolean {
  for (let i = 0; i < taps.length; i++) if (taps[i].context) return true;
  return false;
}

function from(taps: readonly TapRecord[], start: number, value: unknown, ctx: unknown, waterfall: boolean): unknown {
  for (let i = start; i < taps.length; i++) {
    const { type, fn } = taps[i];
    let answer: unknown;
    if (type === 'sync') answer = fn(value, ctx);
    else if (type === 'promise') {
      const pending = fn(value, ctx);
      if (!isPromiseLike(pending)) throw new Error(`Tap function (tapPromise) did not return promise (returned ${String(pending)})`);
      return next(pending, taps, i, value, ctx, waterfall);
    } else {
      // a callback tap: its answer now if it called back at once, else a promise of it
      let called = false;
      let error: unknown;
      let settle: ((err: unknown, result: unknown) => void) | undefined;
      fn(value, ctx, (err: unknown, result: unknown) => {
        if (called) return;
        called = true;
        error = err;
        answer = result;
        settle?.(err, result);
      });
      if (!called) return next(new Promise((resolve, reject) => (settle = (err, result) => (err ? reject(err) : resolve(result)))), taps, i, value, ctx, waterfall);
      if (error) throw error;
    }
    if (waterfall && answer !== undefined) value = answer;
  }
  return waterfall ? value : undefined;
}

function next(pending: PromiseLike<unknown>, taps: readonly TapRecord[], i: number, value: unknown, ctx: unknown, waterfall: boolean): Promise<unknown> {
  return Promise.resolve(pending).then((answer) => from(taps, i + 1, waterfall && answer !== undefined ? answer : value, ctx, waterfall));
}
