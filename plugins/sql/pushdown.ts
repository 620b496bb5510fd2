import type { Node } from './alasql.js';
import type { TableInfo } from './catalog.js';
import type { TableRef } from './normalize.js';
import type { BoundParams } from './params.js';
import { intersect, isKey, likeRanges, point, type Key, type Range } from './ranges.js';

/** Per column, the keys the statement can only match within (its conditions ANDed). */
export type Conditions = Map<string, Range[]>;

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

interface Ctx {
  ref: TableRef;
  info: TableInfo;
  /** unqualified columns belong to this table: it is the only one of its SELECT */
  alone: boolean;
  classOf: Map<Node, string>;
  params: BoundParams;
}

/**
 * The conditions a table's read can use: the top-level AND conjuncts of its SELECT's WHERE
 * (and of its INNER/LEFT join's ON) that compare one of its columns with a value: =, <, <=, >,
 * >=, IN, BETWEEN, a LIKE prefix, and ORs of those on one column. Every one is null-rejecting,
 * so reading only the matching documents is right under outer joins too; alasql still
 * evaluates the whole WHERE on what was read.
 */
export function conditionsOf(ref: TableRef, info: TableInfo, classOf: Map<Node, string>, params: BoundParams, tablesInSelect: number): Conditions {
  const ctx: Ctx = { ref, info, alone: tablesInSelect === 1, classOf, params };
  const conditions: Conditions = new Map();
  const where = ref.select.where?.expression ?? ref.select.where;
  for (const expr of [...conjuncts(where), ...conjuncts(ref.on)]) {
    const found = rangesOf(expr, ctx);
    if (!found) continue;
    const known = conditions.get(found.column);
    conditions.set(found.column, known ? intersect(known, found.ranges) : found.ranges);
  }
  return conditions;
}

export function conjuncts(expr: Node | undefined): Node[] {
  if (!expr) return [];
  if (expr.op === 'AND') return [...conjuncts(expr.left), ...conjuncts(expr.right)];
  return [expr];
}

function columnOf(node: Node, ctx: Ctx): string | null {
  if (ctx.classOf.get(node) !== 'Column') return null;
  const { columnid, tableid } = node as { columnid: string; tableid?: string };
  if (tableid ? tableid !== ctx.ref.alias : !ctx.alone) return null;
  return ctx.info.columns.has(columnid) ? columnid : null;
}

/** A value node's value when it is a key of the column's kind (a '5' never narrows a number column). */
function valueOf(node: Node, kind: string, ctx: Ctx): Key | null {
  const cls = ctx.classOf.get(node);
  let value: unknown;
  if (cls === 'NumValue' || cls === 'LogicValue') value = node.value;
  else if (cls === 'ParamValue') value = ctx.params[node.param];
  else if (cls === 'UniOp' && node.op === '-') {
    const inner = valueOf(node.right, 'number', ctx);
    value = typeof inner === 'number' ? -inner : undefined;
  } else return null;
  return isKey(value) && typeof value === kind ? value : null;
}

function rangesOf(expr: Node, ctx: Ctx): { column: string; ranges: Range[] } | null {
  const op = expr.op as string | undefined;
  if (ctx.classOf.get(expr) !== 'Op' || !op) return null;
  if (op === 'OR') {
    const left = rangesOf(expr.left, ctx);
    const right = rangesOf(expr.right, ctx);
    return left && right && left.column === right.column ? { column: left.column, ranges: [...left.ranges, ...right.ranges] } : null;
  }
  if (op in FLIP) {
    let column = columnOf(expr.left, ctx);
    let other = expr.right;
    let cmp = op;
    if (!column) {
      column = columnOf(expr.right, ctx);
      other = expr.left;
      cmp = FLIP[op];
    }
    const value = column ? valueOf(other, ctx.info.columns.get(column)!, ctx) : null;
    if (!column || value === null) return null;
    const range: Range = cmp === '=' ? point(value) : cmp[0] === '<' ? { hi: value, hiOpen: cmp === '<' } : { lo: value, loOpen: cmp === '>' };
    return { column, ranges: [range] };
  }
  const column = columnOf(expr.left, ctx);
  if (!column) return null;
  const kind = ctx.info.columns.get(column)!;
  if (op === 'IN' && Array.isArray(expr.right)) {
    const values = expr.right.map((n: Node) => valueOf(n, kind, ctx));
    return values.every((v: Key | null) => v !== null) ? { column, ranges: values.map((v: Key) => point(v)) } : null;
  }
  if (op === 'BETWEEN') {
    const lo = valueOf(expr.right1, kind, ctx);
    const hi = valueOf(expr.right2, kind, ctx);
    return lo !== null && hi !== null ? { column, ranges: [{ lo, hi }] } : null;
  }
  if (op === 'LIKE' && kind === 'string' && !expr.escape) {
    const pattern = valueOf(expr.right, 'string', ctx);
    const ranges = typeof pattern === 'string' ? likeRanges(pattern) : null;
    return ranges ? { column, ranges } : null;
  }
  return null;
}
