import type { Node } from './alasql.js';
import type { TableInfo } from './catalog.js';
import type { TableRef } from './normalize.js';
import { conjuncts } from './pushdown.js';
import { isKey, point, type Key, type Range } from './ranges.js';
import type { Row } from './rows.js';

/** `ref.column = other.otherColumn`: once `other` is read, `ref` needs only the values it holds. */
export interface JoinEdge {
  ref: TableRef;
  column: string;
  other: TableRef;
  otherColumn: string;
}

/** More distinct values than this and the table is read its own way (an IN list that long costs more than it saves). */
export const MAX_JOIN_VALUES = 5000;

/**
 * Equalities between two tables of one SELECT that may narrow `ref`: from WHERE (null-rejecting),
 * from an INNER join's ON (either side), from a LEFT join's ON when `ref` is the joined table
 * (never the preserved side of an outer join: its unmatched rows are part of the answer).
 */
export function joinEdges(ref: TableRef, refs: readonly TableRef[], classOf: Map<Node, string>, infos: Map<TableRef, TableInfo>): JoinEdge[] {
  const sources: Node[] = [...conjuncts(ref.select.where?.expression ?? ref.select.where)];
  for (const other of refs) {
    if (other.select !== ref.select || !other.join) continue;
    if (other.join.mode === 'INNER' || (other.join.mode === 'LEFT' && other === ref)) sources.push(...conjuncts(other.join.on));
  }
  const sameSelect = refs.filter((r) => r.select === ref.select);
  const owner = (col: Node): { ref: TableRef; column: string } | null => {
    if (classOf.get(col) !== 'Column' || !col.tableid) return null;
    const found = sameSelect.find((r) => r.alias === col.tableid);
    return found && infos.get(found)!.columns.has(col.columnid) ? { ref: found, column: col.columnid } : null;
  };
  const edges: JoinEdge[] = [];
  for (const expr of sources) {
    if (classOf.get(expr) !== 'Op' || expr.op !== '=') continue;
    const left = owner(expr.left);
    const right = owner(expr.right);
    if (!left || !right || left.ref === right.ref) continue;
    if (left.ref === ref) edges.push({ ref, column: left.column, other: right.ref, otherColumn: right.column });
    if (right.ref === ref) edges.push({ ref, column: right.column, other: left.ref, otherColumn: left.column });
  }
  return edges;
}

/** The points `edge.column` may take: the distinct values of the other table's column (of the column's kind). */
export function joinRanges(edge: JoinEdge, kind: string, otherRows: readonly Row[]): Range[] | null {
  const values = new Set<Key>();
  for (const row of otherRows) {
    const v = row[edge.otherColumn];
    if (isKey(v) && typeof v === kind) values.add(v);
    if (values.size > MAX_JOIN_VALUES) return null;
  }
  return [...values].map((v) => point(v));
}
