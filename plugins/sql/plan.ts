import type { TableInfo } from './catalog.js';
import type { ClassIndex } from './indexes/class-index.js';
import type { IndexSet } from './indexes/index-set.js';
import type { Conditions } from './pushdown.js';
import { isPoint, type Key, type Range } from './ranges.js';
import type { ClientStack } from '../../index.js';

export type AccessPath = 'primary-key' | `index:${string}` | 'id-range' | 'scan';

/** How one table is read: the path, the conditions it uses, and how many documents it expects. */
export interface Access {
  path: AccessPath;
  /** the primary-key values to look up (primary-key) */
  keys?: Key[][];
  /** the ranges of the path's column (id-range, index) */
  ranges?: Range[];
  attribute?: string;
  index?: ClassIndex | null;
  includeInactive: boolean;
  /** what the read is limited to, as a Mango selector (EXPLAIN) */
  selector: Record<string, unknown>;
  /** documents the path expects to read; null when it cannot tell */
  estimated: number | null;
}

/** More primary-key combinations than this (IN lists on several key attributes) read another way. */
const MAX_KEY_LOOKUPS = 1000;

/**
 * Picks the cheapest path for a table from its conditions: a primary-key lookup (every key
 * attribute given, active documents only: inactive ones leave the key index; a peer's document
 * stored despite a key clash — `index:conflict` — is not in it either), an indexed
 * attribute (the index counts what a range holds), `_id` values or ranges, else the class scan.
 */
export async function planAccess(stack: ClientStack, indexes: IndexSet, info: TableInfo, conditions: Conditions, includeInactive: boolean, useKeys = true): Promise<Access> {
  const index = info.model && info.indexed.length > 0 ? await indexes.ready(info.model) : null;
  const options: Access[] = [];
  const base = { includeInactive, index };
  if (useKeys && info.primaryKey.length > 0 && !includeInactive && info.primaryKey.every((a) => conditions.get(a)?.every(isPoint))) {
    let keys: Key[][] = [[]];
    for (const attribute of info.primaryKey) keys = keys.flatMap((k) => conditions.get(attribute)!.map((r) => [...k, r.lo as Key]));
    if (keys.length <= MAX_KEY_LOOKUPS) {
      const selector = Object.fromEntries(info.primaryKey.map((a) => [a, selectorOf(conditions.get(a)!)]));
      options.push({ ...base, path: 'primary-key', keys, selector, estimated: keys.length });
    }
  }
  if (index) {
    for (const attribute of info.indexed) {
      const ranges = conditions.get(attribute);
      if (ranges) options.push({ ...base, path: `index:${attribute}`, attribute, ranges, selector: { [attribute]: selectorOf(ranges) }, estimated: index.count(attribute, ranges) });
    }
  }
  const ids = conditions.get('_id');
  if (ids) {
    const estimated = ids.every(isPoint) ? ids.length : null;
    options.push({ ...base, path: 'id-range', ranges: ids, selector: { _id: selectorOf(ids) }, estimated });
  }
  const rank = (a: Access) => a.estimated ?? Number.MAX_SAFE_INTEGER - 1;
  const best = options.sort((a, b) => rank(a) - rank(b))[0] ?? { ...base, path: 'scan', selector: {}, estimated: index ? index.entries.size : null };
  if (!includeInactive) best.selector = { ...best.selector, active: true };
  return best;
}

/** A list of ranges as a Mango condition: `5`, `{ $in: [..] }`, `{ $gte: 1, $lt: 9 }`, `{ $or: … }`. */
export function selectorOf(ranges: readonly Range[]): unknown {
  if (ranges.length === 0) return { $in: [] };
  if (ranges.every(isPoint)) return ranges.length === 1 ? ranges[0].lo : { $in: ranges.map((r) => r.lo) };
  const one = (r: Range) => ({
    ...(r.lo !== undefined ? { [r.loOpen ? '$gt' : '$gte']: r.lo } : {}),
    ...(r.hi !== undefined ? { [r.hiOpen ? '$lt' : '$lte']: r.hi } : {}),
  });
  return ranges.length === 1 ? one(ranges[0]) : { $or: ranges.map(one) };
}
