import { classTable, type TableInfo } from './catalog.js';
import type { SqlDeps } from './prepare.js';
import { planAccess } from './plan.js';
import type { Conditions } from './pushdown.js';
import { intersect, isKey, point, type Range } from './ranges.js';
import { readDocs } from './read.js';
import type { FindCandidates, FindContext, Selector } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';

const OPERATORS: Record<string, (v: unknown) => Range | null> = {
  $eq: (v) => (isKey(v) ? point(v) : null),
  $gt: (v) => (isKey(v) ? { lo: v, loOpen: true } : null),
  $gte: (v) => (isKey(v) ? { lo: v } : null),
  $lt: (v) => (isKey(v) ? { hi: v, hiOpen: true } : null),
  $lte: (v) => (isKey(v) ? { hi: v } : null),
};

/**
 * The findCandidates tap: when a findDocuments selector narrows an indexed attribute or `_id`,
 * the documents come from that path instead of the class scan (the
 * kernel still matches the full selector on them).
 */
export async function findCandidates(deps: SqlDeps, selector: Selector, ctx: FindContext): Promise<FindCandidates | undefined> {
  const info = classTable(ctx.classModel);
  const conditions: Conditions = new Map();
  collect(selector, info, conditions);
  if (conditions.size === 0) return undefined;
  // not the primary-key path: findDocuments answers exactly what a scan would, and a peer's
  // document kept despite a key clash (index:conflict) is not in the key index
  const access = await planAccess(deps.stack, deps.indexes, info, conditions, ctx.includeInactive, false);
  if (access.path === 'scan') return undefined;
  return { docs: (await readDocs(deps.stack, deps.store, info, access, deps.cache)).docs };
}

/** Mango conditions an index can use: `{ f: v }`, $eq/$gt/$gte/$lt/$lte/$in, and $and lists of them. */
function collect(selector: Selector, info: TableInfo, into: Conditions): void {
  for (const [field, condition] of Object.entries(selector)) {
    if (field === '$and' && Array.isArray(condition)) {
      for (const part of condition) if (isPlainObject(part)) collect(part, info, into);
      continue;
    }
    const kind = info.columns.get(field);
    if (!kind || kind === 'other' || field.startsWith('$')) continue;
    const ranges: Range[][] = [];
    if (isKey(condition)) ranges.push([point(condition)]);
    else if (isPlainObject(condition)) {
      for (const [op, value] of Object.entries(condition)) {
        if (op === '$in' && Array.isArray(value) && value.every((v) => isKey(v) && typeof v === kind)) ranges.push(value.map((v) => point(v)));
        const range = OPERATORS[op]?.(value);
        if (range && typeof value === kind) ranges.push([range]);
      }
    }
    for (const r of ranges) {
      const known = into.get(field);
      into.set(field, known ? intersect(known, r) : r);
    }
  }
}
