import type { AlaSQL } from './alasql.js';
import { SQL_ERRORS } from './errors.js';
import { compileLinear, type LinearRegex, MAX_PATTERN } from '../../kit/index.js';

/**
 * SQL LIKE in linear time, with alasql's semantics. alasql (utils.like) turns a pattern into a
 * backtracking RegExp — `'%a%a%b'` over 4,000 characters took 12–21 s — and caches every
 * pattern it ever saw. Here, with the same meaning:
 * - `%` any run of characters, `_` one UTF-16 unit other than a line break, case ignored (as
 *   RegExp's `i` flag folds: per unit, through toUpperCase), the whole value matched, NULL as '';
 * - a pattern with only those wildcards and literal characters (the usual case) is matched by
 *   its literal segments, each at its leftmost place: at most (value length × pattern length)
 *   steps, without building any regular expression;
 * - a pattern with what alasql passes through to its RegExp (`[…]` and `[^…]` sets, `^`, `$`,
 *   `\`), or an ESCAPE character, becomes alasql's regular expression, run on RE2 (linear).
 * Each match is charged to the running statement's meter (see `meter`): a statement whose
 * matching would pass its budget is stopped (DS_SQL_BUDGET), never left to hold the event loop.
 */

/** Steps charged for a character scanned by RE2 (measured 0.1–2 µs, case folding included) against ~1 ns for a plain scan. */
const RE2_WEIGHT = 2000;
const PASSED_TO_REGEX = /[[\]^$\\]/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

interface Meter {
  left: number;
  budget: number;
}

let running: Meter | null = null;

/**
 * Runs `fn` (a synchronous alasql run) with `budget` steps of LIKE matching: alasql calls LIKE
 * from its compiled code, so the meter is the running statement's, set for the synchronous call.
 */
export function metered<T>(budget: number, fn: () => T): T {
  const outer = running;
  running = { left: budget, budget };
  try {
    return fn();
  } finally {
    running = outer;
  }
}

function charge(steps: number): void {
  if (!running) return;
  running.left -= steps;
  if (running.left < 0) {
    throw SQL_ERRORS.budget(`The statement's LIKE matching would take more than its budget of ${running.budget} steps: narrow the rows it reads (WHERE on an indexed attribute, _id) or shorten the pattern.`, {
      details: { reason: 'like', budget: running.budget },
    });
  }
}

/** RegExp's `i` canonicalisation of one UTF-16 unit (non-unicode mode): its upper case when that is one unit, not ASCII from non-ASCII. */
function foldUnit(c: string): string {
  const u = c.toUpperCase();
  if (u.length !== 1) return c;
  return c.charCodeAt(0) >= 128 && u.charCodeAt(0) < 128 ? c : u;
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
function fold(text: string): string {
  if (ASCII.test(text)) return text.toUpperCase();
  let out = '';
  for (const c of text.split('')) out += foldUnit(c);
  return out;
}

/** alasql's translation of a pattern to a regular expression (utils.like), kept as it is. */
export function likeRegexSource(pattern: string, escape: string): string {
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const next = i < pattern.length - 1 ? pattern[i + 1] : '';
    if (c === escape) {
      source += `\\${next}`;
      i++;
    } else if (c === '[' && next === '^') {
      source += '[^';
      i++;
    } else if (c === '[' || c === ']') source += c;
    else if (c === '%') source += '[\\s\\S]*';
    else if (c === '_') source += '.';
    else if ('/.*+?|(){}'.includes(c)) source += `\\${c}`;
    else source += c;
  }
  return `${source}$`;
}

type Matcher = (value: string) => boolean;

/** `seg` (folded; `_` any unit but a line break) at `at` of `text` (folded). */
function segmentAt(seg: string, text: string, at: number): boolean {
  for (let k = 0; k < seg.length; k++) {
    const p = seg[k];
    const c = text[at + k];
    if (p === '_' ? LINE_BREAK.test(c) : p !== c) return false;
  }
  return true;
}

/** The leftmost place ≥ from (and ≤ last) where `seg` matches, or -1. */
function findSegment(seg: string, text: string, from: number, last: number): number {
  if (!seg.includes('_')) {
    const at = text.indexOf(seg, from);
    return at >= 0 && at <= last ? at : -1;
  }
  charge((last - from + 1) * seg.length);
  for (let at = from; at <= last; at++) if (segmentAt(seg, text, at)) return at;
  return -1;
}

/** Segments between `%`s: the first anchored at the start, the last at the end, each middle one at its leftmost place. */
function segmentMatcher(pattern: string): Matcher {
  const segments = fold(pattern).split('%');
  const first = segments[0];
  const tail = segments.length > 1 ? segments[segments.length - 1] : null;
  const middle = segments.slice(1, -1).filter((s) => s !== '');
  return (raw) => {
    const text = fold(raw);
    charge(text.length);
    if (tail === null) return text.length === first.length && segmentAt(first, text, 0);
    if (text.length < first.length + tail.length || !segmentAt(first, text, 0) || !segmentAt(tail, text, text.length - tail.length)) return false;
    let at = first.length;
    const end = text.length - tail.length;
    for (const seg of middle) {
      const found = findSegment(seg, text, at, end - seg.length);
      if (found < 0) return false;
      at = found + seg.length;
    }
    return true;
  };
}

function regexMatcher(pattern: string, escape: string): Matcher {
  const compiled: LinearRegex | string = compileLinear(likeRegexSource(pattern, escape), true);
  if (typeof compiled === 'string') {
    throw SQL_ERRORS.pattern(`The LIKE pattern ${JSON.stringify(pattern.slice(0, 80))} is refused: ${compiled}.`, { details: { pattern: pattern.slice(0, 200) } });
  }
  return (value) => {
    charge(value.length * RE2_WEIGHT);
    return compiled.test(value);
  };
}

const CACHE_SIZE = 256;
const cache = new Map<string, Matcher>();

function matcherFor(pattern: string, escape: string): Matcher {
  const key = `${escape}\u0000${pattern}`;
  let matcher = cache.get(key);
  if (!matcher) {
    if (pattern.length > MAX_PATTERN) throw SQL_ERRORS.pattern(`A LIKE pattern is at most ${MAX_PATTERN} characters long (got ${pattern.length}).`, { details: { length: pattern.length } });
    const plain = !PASSED_TO_REGEX.test(pattern) && (escape === '' || !pattern.includes(escape));
    matcher = plain ? segmentMatcher(pattern) : regexMatcher(pattern, escape);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, matcher);
  }
  return matcher;
}

/** `value LIKE pattern [ESCAPE escape]`, as alasql's utils.like answers it (a NULL pattern matches nothing). */
export function like(pattern: unknown, value: unknown, escape: unknown = ''): boolean {
  if (pattern === null || pattern === undefined) return false;
  return matcherFor(String(pattern), escape === null || escape === undefined ? '' : String(escape))(`${value ?? ''}`);
}

/** The longest text REPLACE may build: `REPLACE(x, '', x)` squares x's length, nested it explodes memory. */
export const MAX_REPLACED = 1_000_000;

/** alasql's REPLACE (split and join), with its result's length bounded before it is built. */
export function replace(target: unknown, pattern: unknown, replacement: unknown): string {
  const text = String(target ?? '');
  const from = String(pattern ?? '');
  const to = String(replacement ?? '');
  const occurrences = from === '' ? text.length + 1 : text.split(from).length - 1;
  if (text.length + occurrences * (to.length - from.length) > MAX_REPLACED) {
    throw SQL_ERRORS.budget(`REPLACE would build a text longer than ${MAX_REPLACED} characters.`, { details: { reason: 'replace', limit: MAX_REPLACED } });
  }
  return text.split(from).join(to);
}

const installed = new WeakSet<object>();

/**
 * alasql's compiled statements call `alasql.utils.like` and `alasql.stdfn.REPLACE`: these
 * replace them (once per alasql module), with the same answers.
 */
export function installLinearLike(alasql: AlaSQL): void {
  if (installed.has(alasql)) return;
  const ala = alasql as unknown as { utils: { like: typeof like }; stdfn: Record<string, unknown> };
  ala.utils.like = like;
  ala.stdfn.REPLACE = replace;
  installed.add(alasql);
}
