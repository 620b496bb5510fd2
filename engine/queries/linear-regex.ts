import { RE2JS } from 're2js';

/**
 * Regular expressions matched in time linear in the text (RE2's automaton, never backtracking):
 * what a remote caller's `$regex` and SQL `LIKE` run on, so no pattern can make one match cost
 * seconds (`^(a+)+$` over 31 characters took 5–6.8 s in V8's backtracking engine; here ~0.2 ms).
 * Measured (bench/query-cost.ts): ~0.7 µs a character once warm, ~15 µs a short match — slower
 * than V8 on easy patterns, bounded on every one. RE2 has no backreferences and no lookaround:
 * such a pattern is refused, not run. Imported only where remote queries are matched (the
 * server, the sql plugin): the browser's core bundle does not carry it.
 */

/** The longest pattern compiled: an automaton's size grows with its pattern. */
export const MAX_PATTERN = 1000;

export interface LinearRegex {
  /** true when the pattern matches somewhere in `text` (RegExp.prototype.test without flags) */
  test(text: string): boolean;
}

const CACHE_SIZE = 256;
const cache = new Map<string, LinearRegex>();

/**
 * The pattern compiled (cached by pattern and case flag), or the reason it is refused: too long,
 * not valid RE2 syntax (backreferences, lookaround), or a repetition count past RE2's 1,000.
 */
export function compileLinear(pattern: string, ignoreCase = false): LinearRegex | string {
  if (pattern.length > MAX_PATTERN) return `the pattern is ${pattern.length} characters long, more than ${MAX_PATTERN}`;
  const key = `${ignoreCase ? 'i' : '-'}${pattern}`;
  const known = cache.get(key);
  if (known) return known;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    return `${(err as Error).message} (patterns are RE2 syntax: no backreferences, no lookahead or lookbehind)`;
  }
  const compiled: LinearRegex = { test: (text) => re.matcher(text).find() };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}
