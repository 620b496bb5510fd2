/**
 * Awaits only what is a promise. The write path calls optional hooks (a write part's `prepare`,
 * `docs`, `done`…) that usually have nothing to wait for; `await` on a plain value still costs a
 * promise and a microtask turn, and a serial write makes dozens of such calls.
 */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
