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

/** The taps to call directly, or null when tapable must run the hook (interceptors, `context`). */
function directTaps(hook: object): TapRecord[] | null {
  const { taps, interceptors } = hook as TapableHook;
  if (interceptors.length > 0) return null;
  for (const tap of taps) if (tap.context) return null;
  return taps;
}

/** A `tapAsync` tap: its result now if it called back at once, else a promise of it. */
function callBack(tap: TapRecord, a: unknown, b: unknown): { now: true; value: unknown } | Promise<unknown> {
  let answered = false;
  let error: unknown;
  let value: unknown;
  let settle: ((err: unknown, result: unknown) => void) | undefined;
  tap.fn(a, b, (err: unknown, result: unknown) => {
    if (answered) return;
    answered = true;
    error = err;
    value = result;
    settle?.(err, result);
  });
  if (answered) {
    if (error) throw error;
    return { now: true, value };
  }
  return new Promise((resolve, reject) => {
    settle = (err, result) => (err ? reject(err) : resolve(result));
  });
}

/** A `tapPromise` tap's promise (tapable refuses a tap that returns none; so does this). */
function promised(tap: TapRecord, a: unknown, b: unknown): PromiseLike<unknown> {
  const answer = tap.fn(a, b);
  if (!isPromiseLike(answer)) throw new Error(`Tap function (tapPromise) did not return promise (returned ${String(answer)})`);
  return answer;
}

/** AsyncSeriesWaterfallHook: each tap gets the value the one before it returned (undefined keeps it). */
export function runWaterfall<T, C>(hook: object, value: T, ctx: C): T | Promise<T> {
  const taps = directTaps(hook);
  if (!taps) return (hook as TapableHook).promise(value, ctx) as Promise<T>;
  return waterfallFrom(taps, 0, value, ctx);
}

function waterfallFrom<T, C>(taps: readonly TapRecord[], from: number, value: T, ctx: C): T | Promise<T> {
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i];
    let answer: unknown;
    if (tap.type === 'sync') answer = tap.fn(value, ctx);
    else {
      const pending = tap.type === 'promise' ? promised(tap, value, ctx) : callBack(tap, value, ctx);
      if (isPromiseLike(pending)) {
        const kept = value;
        return Promise.resolve(pending).then((result) => waterfallFrom(taps, i + 1, result !== undefined ? (result as T) : kept, ctx));
      }
      answer = pending.value;
    }
    if (answer !== undefined) value = answer as T;
  }
  return value;
}

/** AsyncSeriesHook: each tap in turn, answers ignored. */
export function runSeries<A, C>(hook: object, arg: A, ctx: C): void | Promise<void> {
  const taps = directTaps(hook);
  if (!taps) return (hook as TapableHook).promise(arg, ctx) as Promise<void>;
  return seriesFrom(taps, 0, arg, ctx);
}

function seriesFrom<A, C>(taps: readonly TapRecord[], from: number, arg: A, ctx: C): void | Promise<void> {
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i];
    if (tap.type === 'sync') {
      tap.fn(arg, ctx);
      continue;
    }
    const pending = tap.type === 'promise' ? promised(tap, arg, ctx) : callBack(tap, arg, ctx);
    if (isPromiseLike(pending)) return Promise.resolve(pending).then(() => seriesFrom(taps, i + 1, arg, ctx));
  }
}
