import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { Doc } from '../../contracts/model.js';
import type { FindOptions } from '../../contracts/queries.js';

/** One sort key: an attribute name (ascending) or `{ name: 'asc' | 'desc' }`, as in a Mango query. */
export type SortKey = string | Record<string, 'asc' | 'desc'>;

/**
 * What a live query takes: findDocuments' options (`fields`, `skip`, `limit`, `includeInactive`,
 * `after`) plus `sort`. Without `sort` the result is in `_id` order, as findDocuments answers.
 */
export interface LiveOptions extends Pick<FindOptions, 'fields' | 'skip' | 'limit' | 'includeInactive' | 'after'> {
  /** sort keys, first one first; ties in `_id` order. A sorted live query keeps every match in memory. */
  sort?: SortKey[];
}

export type DocOrder = (a: Doc, b: Doc) => number;

const byId: DocOrder = (a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/** CouchDB's order of kinds: null, booleans, numbers, text, arrays, objects (a missing value as null). */
function rank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  return Array.isArray(value) ? 4 : 5;
}

function compareValues(a: unknown, b: unknown): number {
  const kinds = rank(a) - rank(b);
  if (kinds !== 0 || rank(a) === 0) return kinds;
  if (rank(a) >= 4) {
    const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** The order of a live result: its sort keys, then `_id`; `_id` alone without them. */
export function orderOf(sort: SortKey[] | undefined): DocOrder {
  if (!sort || sort.length === 0) return byId;
  const keys = sort.map((key) => {
    const [field, direction] = typeof key === 'string' ? [key, 'asc'] : Object.entries(key)[0];
    return { field, sign: direction === 'desc' ? -1 : 1 };
  });
  return (a, b) => {
    for (const { field, sign } of keys) {
      const c = compareValues(a[field], b[field]);
      if (c !== 0) return sign * c;
    }
    return byId(a, b);
  };
}

/** A sort that is not a list of names or `{ name: 'asc' | 'desc' }` entries: DS_QUERY_INVALID. */
export function checkSort(sort: unknown): void {
  if (sort === undefined) return;
  const valid = (key: unknown) =>
    (typeof key === 'string' && key !== '') ||
    (key !== null && typeof key === 'object' && !Array.isArray(key) && Object.keys(key).length === 1 && ['asc', 'desc'].includes(Object.values(key)[0] as string));
  if (!Array.isArray(sort) || !sort.every(valid)) {
    throw KERNEL_ERRORS.queryInvalid('sort must be a list of attribute names or { name: "asc" | "desc" } entries.', { path: 'sort' });
  }
}

/** Where `doc` goes in `list` (sorted by `order`): the first place whose document sorts after it. */
export function insertionPoint(list: readonly Doc[], doc: Doc, order: DocOrder): number {
  let [low, high] = [0, list.length];
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (order(list[mid], doc) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}
