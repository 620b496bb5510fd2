/** An index key: the value of an indexed attribute (or an `_id`), compared as alasql compares it. */
export type Key = number | string | boolean;

/** A key range; an absent bound is open-ended. Points are ranges with lo === hi, both inclusive. */
export interface Range {
  lo?: Key;
  hi?: Key;
  loOpen?: boolean;
  hiOpen?: boolean;
}

const RANK = { boolean: 0, number: 1, string: 2 } as const;

/** Booleans < numbers < strings; within a kind, JavaScript's `<` (what alasql's comparisons use). */
export function compareKeys(a: Key, b: Key): number {
  const ta = RANK[typeof a as keyof typeof RANK];
  const tb = RANK[typeof b as keyof typeof RANK];
  if (ta !== tb) return ta - tb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export const isKey = (v: unknown): v is Key => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

export const point = (key: Key): Range => ({ lo: key, hi: key });

export function isPoint(range: Range): boolean {
  return range.lo !== undefined && range.hi !== undefined && !range.loOpen && !range.hiOpen && compareKeys(range.lo, range.hi) === 0;
}

export function contains(range: Range, key: Key): boolean {
  if (range.lo !== undefined) {
    const c = compareKeys(key, range.lo);
    if (c < 0 || (c === 0 && range.loOpen)) return false;
  }
  if (range.hi !== undefined) {
    const c = compareKeys(key, range.hi);
    if (c > 0 || (c === 0 && range.hiOpen)) return false;
  }
  return true;
}

function intersectOne(a: Range, b: Range): Range | null {
  const out: Range = { ...a };
  if (b.lo !== undefined && (out.lo === undefined || compareKeys(b.lo, out.lo) > 0 || (compareKeys(b.lo, out.lo) === 0 && b.loOpen))) {
    out.lo = b.lo;
    out.loOpen = b.loOpen;
  }
  if (b.hi !== undefined && (out.hi === undefined || compareKeys(b.hi, out.hi) < 0 || (compareKeys(b.hi, out.hi) === 0 && b.hiOpen))) {
    out.hi = b.hi;
    out.hiOpen = b.hiOpen;
  }
  if (out.lo !== undefined && out.hi !== undefined) {
    const c = compareKeys(out.lo, out.hi);
    if (c > 0 || (c === 0 && (out.loOpen || out.hiOpen))) return null;
  }
  return out;
}

/** Keys in both lists of ranges (two conditions on one column, ANDed). */
export function intersect(a: Range[], b: Range[]): Range[] {
  const out: Range[] = [];
  for (const x of a) for (const y of b) {
    const r = intersectOne(x, y);
    if (r) out.push(r);
  }
  return out;
}

/**
 * The prefix ranges a LIKE pattern can match. alasql's LIKE ignores case, so each ASCII letter
 * of the literal prefix doubles the ranges; the prefix is cut before it would pass `max`
 * ranges, and before any character whose case folding is not plain ASCII (a shorter prefix
 * still finds every match: alasql filters the rest).
 */
export function likeRanges(pattern: string, max = 16): Range[] | null {
  let variants = [''];
  for (const c of pattern) {
    if (c === '%' || c === '_' || c === '[' || c === '\\') break;
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    if (lower === upper) variants = variants.map((v) => v + c);
    else if (/^[a-z]$/.test(lower) && /^[A-Z]$/.test(upper)) {
      if (variants.length * 2 > max) break;
      variants = variants.flatMap((v) => [v + lower, v + upper]);
    } else break;
  }
  if (variants[0] === '') return null;
  return variants.map((v) => ({ lo: v, hi: `${v}\uffff` }));
}
