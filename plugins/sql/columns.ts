import type { Node } from './alasql.js';
import type { TableInfo } from './catalog.js';
import { SQL_ERRORS } from './errors.js';
import type { TableRef } from './normalize.js';

export interface ColumnUse {
  /** tables whose `active` column the statement names: their inactive documents are read too */
  includeInactive: Set<TableRef>;
  /** per table, the columns the statement filters, sorts, groups, joins or computes on */
  computed: Map<TableRef, Set<string>>;
}

/**
 * Checks that every column the statement names exists (DS_SQL_COLUMN_UNKNOWN: alasql would
 * read a misspelt column as NULL and answer wrongly, not fail), and records how columns are
 * used: naming `active` shows inactive documents; a column used anywhere but as a plain SELECT
 * item is "computed" (an encrypted one must then be readable).
 */
export function useColumns(classOf: Map<Node, string>, refs: TableRef[], infos: Map<TableRef, TableInfo>, dml: Node | null): ColumnUse {
  const use: ColumnUse = { includeInactive: new Set(), computed: new Map(refs.map((r) => [r, new Set<string>()])) };
  const outputNames = new Set<string>();
  const derived = new Set<string>();
  const plain = new Set<Node>();
  for (const [node, cls] of classOf) {
    if (cls !== 'Select') continue;
    for (const col of node.columns ?? []) {
      if (col.as) outputNames.add(col.as);
      if (node !== dml) plain.add(col);
    }
    for (const item of [...(node.from ?? []), ...(node.joins ?? []).map((j: Node) => j.table)]) {
      if (classOf.get(item) === 'Select' && item.as) derived.add(item.as);
    }
  }
  for (const [node, cls] of classOf) {
    if (cls !== 'Column' || node.columnid === '*') continue;
    const column = node.columnid as string;
    const qualified = node.tableid as string | undefined;
    if (qualified && derived.has(qualified)) continue;
    const candidates = qualified ? refs.filter((r) => r.alias === qualified) : refs.filter((r) => infos.get(r)!.columns.has(column));
    if (qualified && candidates.length === 0) {
      throw SQL_ERRORS.columnUnknown(`"${qualified}.${column}": no table of the statement is called "${qualified}".`, { details: { table: qualified, column } });
    }
    const owners = candidates.filter((r) => infos.get(r)!.columns.has(column));
    if (owners.length === 0) {
      if (!qualified && (outputNames.has(column) || derived.size > 0)) continue;
      const where = qualified ? `"${qualified}" (${infos.get(candidates[0])!.name})` : 'any table of the statement';
      throw SQL_ERRORS.columnUnknown(`There is no column "${column}" in ${where}.`, { details: { table: qualified ?? null, column } });
    }
    for (const ref of owners) {
      if (column === 'active') use.includeInactive.add(ref);
      if (!plain.has(node)) use.computed.get(ref)!.add(column);
    }
  }
  return use;
}
