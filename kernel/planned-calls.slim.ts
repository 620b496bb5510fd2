/**
 * The slim bundle's stand-in for kernel/planned-calls.ts (scripts/build-browser.mjs swaps it in):
 * tapable's own `promise()` call for every planned hook — the same taps, order and answers, a
 * promise per hook and document more, and the bundle stays within its budget.
 */
interface Promising {
  promise(...args: unknown[]): Promise<unknown>;
}

export function runWaterfall<T, C>(hook: object, value: T, ctx: C): Promise<T> {
  return (hook as Promising).promise(value, ctx) as Promise<T>;
}

export function runSeries<A, C>(hook: object, arg: A, ctx: C): Promise<void> {
  return (hook as Promising).promise(arg, ctx) as Promise<void>;
}
