import { classTable, type TableInfo } from './catalog.js';
import type { SqlDeps } from './prepare.js';
import { intersect, isKey, point, type Key, type Range } from './ranges.js';
import type { FindContext, Selector } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';

/** The Mango operators an index range says exactly (for values of the column's kind). */
const RANGES: Record<string, (v: unknown) => Range> = {
  $eq: (v) => point(v as Key),
  $gt: (v) => ({ lo: v as Key, loOpen: true }),
  $gte: (v) => ({ lo: v as Key }),
  $lt: (v) => ({ hi: v as Key, hiOpen: true }),
  $lte: (v) => ({ hi: v as Key }),
};

/**
 * The countMatches tap: a selector made only of conditions the class's indexes say exactly
 * (equality, `$in`, `$gt`/`$gte`/`$lt`/`$lte` on indexed attributes, with values of the
 * attribute's kind, at the top level or in `$and`) is counted from the index's keys — the
 * active documents in range, intersected across attributes — without reading a document.
 * Anything else (another attribute, `$or`, `$ne`, a value of another kind) is left to the
 * matching path, which reads the candidates.
 */
export async function countMatches(deps: SqlDeps, selector: Selector, ctx: FindContext): Promise<number | undefined> {
  const info = classTable(ctx.classModel);
  if (info.indexed.length === 0 || ctx.includeInactive) return undefined;
  const conditions = new Map<string, Range[]>();
  if (!exactly(selector, info, conditions) || conditions.size === 0) return undefined;
  const index = await deps.indexes.ready(ctx.classModel);
  if (!index) return undefined;
  let ids: Set<string> | undefined;
  for (const [attribute, ranges] of conditions) {
    const hits = new Set(index.lookup(attribute, ranges, false).map((h) => h.id));
    ids = ids === undefined ? hits : new Set([...ids].filter((id) => hits.has(id)));
  }
  // documents reads hide (a peer's transaction not whole here yet) are no rows either
  for (const id of deps.stack.hooks.hiddenIds.isUsed() ? deps.stack.hooks.hiddenIds.call([], ctx.classModel) : []) ids?.delete(id);
  return ids?.size ?? 0;
}

/** Collects the selector's ranges per attribute; false as soon as one part is not an exact index range. */
function exactly(selector: Selector, info: TableInfo, into: Map<string, Range[]>): boolean {
  for (const [field, condition] of Object.entries(selector)) {
    if (field === '$and') {
      if (!Array.isArray(condition) || !condition.every((part) => isPlainObject(part) && exactly(part as Selector, info, into))) return false;
      continue;
    }
    if (!info.indexed.includes(field) || info.encrypted.has(field)) return false;
    const kind = info.columns.get(field);
    const fits = (v: unknown) => isKey(v) && typeof v === kind;
    const ranges: Range[][] = [];
    if (!isPlainObject(condition)) {
      if (!fits(condition)) return false;
      ranges.push([point(condition as Key)]);
    } else {
      const operators = Object.entries(condition);
      if (operators.length === 0) return false;
      for (const [op, value] of operators) {
        if (op === '$in' && Array.isArray(value) && value.every(fits)) ranges.push(value.map((v) => point(v as Key)));
        else if (RANGES[op] && fits(value)) ranges.push([RANGES[op](value)]);
        else return false;
      }
    }
    for (const r of ranges) {
      const known = into.get(field);
      into.set(field, known ? intersect(known, r) : r);
    }
  }
  return true;
}
