import type { AlaSQL, Node } from './alasql.js';
import { SQL_ERRORS } from './errors.js';
import { bindParams, type BoundParams } from './params.js';

/** One table read by the statement: a FROM or JOIN entry (the same class twice is two reads). */
export interface TableRef {
  /** the name alasql knows the rows by (`t0`, `t1`…): never the caller's text */
  key: string;
  /** the class or domain, as the statement names it */
  name: string;
  /** what columns call it: the alias, else the name */
  alias: string;
  /** the SELECT it belongs to: its WHERE filters it */
  select: Node;
  /** INNER or LEFT join condition: its conjuncts on this table filter it too */
  on?: Node;
  /** the join that brought the table in (none for a FROM entry) */
  join?: { mode: string; on: Node | undefined };
}

export interface Normalized {
  params: BoundParams;
  tables: TableRef[];
}

/**
 * Prepares a guarded statement for compilation, changing nodes in place (alasql shares
 * subquery nodes between several places of its tree):
 * - binds the caller's parameters (bindParams);
 * - turns every string literal into a parameter, so no text of the caller is ever spliced into
 *   the code alasql compiles (names are checked identifiers, numbers are numbers);
 * - expands `IN (?)` over a list parameter into one placeholder per value;
 * - renames each table to a key of ours (`t0`…), keeping the caller's alias for columns.
 */
export function normalize(alasql: AlaSQL, statement: Node, classOf: Map<Node, string>, params: unknown): Normalized {
  const yy = (alasql as unknown as { yy: Record<string, new (p: object) => Node> }).yy;
  const nodes = [...classOf.entries()];
  const bound = bindParams(params, nodes.filter(([, c]) => c === 'ParamValue').map(([n]) => n));
  let literal = 0;
  for (const [node, cls] of nodes) {
    if (cls !== 'StringValue') continue;
    const name = `_s${literal++}`;
    bound[name] = node.value;
    delete node.value;
    Object.setPrototypeOf(node, yy.ParamValue.prototype);
    node.param = name;
    classOf.set(node, 'ParamValue');
  }
  let expanded = 0;
  for (const [node, cls] of nodes) {
    if (cls !== 'Op' || (node.op !== 'IN' && node.op !== 'NOT IN') || !Array.isArray(node.right)) continue;
    node.right = node.right.flatMap((item: Node) => {
      const value = classOf.get(item) === 'ParamValue' ? bound[item.param] : undefined;
      if (!Array.isArray(value)) return [item];
      return value.map((v) => {
        const name = `_a${expanded++}`;
        bound[name] = v;
        const param = new yy.ParamValue({ param: name });
        classOf.set(param, 'ParamValue');
        return param;
      });
    });
  }
  return { params: bound, tables: collectTables(nodes, classOf) };
}

function collectTables(nodes: [Node, string][], classOf: Map<Node, string>): TableRef[] {
  const tables: TableRef[] = [];
  const add = (select: Node, table: Node, holder: Node, on?: Node, join?: TableRef['join']) => {
    const cls = classOf.get(table);
    if (cls === 'Select') return; // a derived table: its own tables are collected with it
    if (cls !== 'Table') throw SQL_ERRORS.refused('FROM and JOIN name classes or relation domains (or a subquery), nothing else.', { details: { construct: `FROM ${cls}` } });
    const key = `t${tables.length}`;
    const name = table.tableid as string;
    const alias = (holder.as as string | undefined) ?? name;
    table.tableid = key;
    holder.as = alias;
    tables.push({ key, name, alias, select, ...(on ? { on } : {}), ...(join ? { join } : {}) });
  };
  for (const [node, cls] of nodes) {
    if (cls !== 'Select') continue;
    for (const item of node.from ?? []) add(node, item, item);
    for (const join of node.joins ?? []) {
      const pushable = join.joinmode === 'INNER' || join.joinmode === 'LEFT';
      add(node, join.table, join, pushable ? join.on : undefined, { mode: join.joinmode, on: join.on });
    }
  }
  return tables;
}
