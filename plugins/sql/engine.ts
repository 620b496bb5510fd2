import type { Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';
import type { DomainRegistry } from '../domains/registry.js';
import { loadAlasql, type AlaSQL, type Node } from './alasql.js';
import { resolveTable, type TableInfo } from './catalog.js';
import { useColumns } from './columns.js';
import { SQL_ERRORS } from './errors.js';
import { write } from './dml.js';
import { guard } from './guard.js';
import type { IndexSet } from './indexes/index-set.js';
import { normalize, type TableRef } from './normalize.js';
import type { BoundParams } from './params.js';
import { parseStatement } from './parse.js';
import { planAccess } from './plan.js';
import { conditionsOf } from './pushdown.js';
import { readDocs } from './read.js';
import { cleanRows, refuseSealed, toRows, type Row } from './rows.js';
import { runSelect } from './run.js';
import type { SqlStore } from './store.js';

export interface SqlDeps {
  stack: ClientStack;
  store: SqlStore;
  indexes: IndexSet;
  domains: DomainRegistry | undefined;
}

/** What INSERT, UPDATE and DELETE return. */
export interface WriteResult {
  count: number;
  ids: string[];
}

/** One table read, as EXPLAIN shows it. */
export interface PlanRow extends Row {
  table: string;
  alias: string;
  path: string;
  selector: Record<string, unknown>;
  estimated: number | null;
  read: number;
}

/** A SELECT made ready to run: its tables' rows read, its parameters bound. */
export interface Prepared {
  alasql: AlaSQL;
  params: BoundParams;
  tables: Map<string, Row[]>;
  plan: PlanRow[];
  refs: TableRef[];
  infos: Map<TableRef, TableInfo>;
  /** the raw stored documents read for each table (DML updates them) */
  raw: Map<TableRef, Doc[]>;
}

/** Parses and checks a statement: its root node and the class of every node. */
export async function parseChecked(statement: string): Promise<{ alasql: AlaSQL; root: Node; classOf: Map<Node, string> }> {
  const alasql = await loadAlasql();
  const root = parseStatement(alasql, statement);
  return { alasql, root, classOf: guard(alasql, root) };
}

/**
 * Reads what a checked statement needs: for each table, the conditions it can use, the
 * cheapest path, the documents through that path (as a reader sees them), and the refusal of
 * sealed values it would compute on. `dml` is the SELECT an UPDATE/DELETE became.
 */
export async function prepare(deps: SqlDeps, alasql: AlaSQL, root: Node, classOf: Map<Node, string>, params: unknown, dml: Node | null = null): Promise<Prepared> {
  const { params: bound, tables: refs } = normalize(alasql, root, classOf, params);
  const infos = new Map<TableRef, TableInfo>();
  for (const ref of refs) infos.set(ref, await resolveTable(deps.stack, deps.domains, ref.name));
  const use = useColumns(classOf, refs, infos, dml);
  const prepared: Prepared = { alasql, params: bound, tables: new Map(), plan: [], refs, infos, raw: new Map() };
  await Promise.all(
    refs.map(async (ref, i) => {
      const info = infos.get(ref)!;
      const siblings = refs.filter((r) => r.select === ref.select).length;
      const access = await planAccess(deps.stack, deps.indexes, info, conditionsOf(ref, info, classOf, bound, siblings), use.includeInactive.has(ref));
      const { docs, read } = await readDocs(deps.stack, deps.store, info, access);
      const rows = await toRows(deps.stack, info, docs);
      refuseSealed(info, use.computed.get(ref)!, rows);
      prepared.tables.set(ref.key, rows);
      prepared.raw.set(ref, docs);
      prepared.plan[i] = { table: info.name, alias: ref.alias, path: access.path, selector: access.selector, estimated: access.estimated, read };
    }),
  );
  return prepared;
}

/** SELECT → rows; EXPLAIN SELECT → one row per table read; INSERT/UPDATE/DELETE → { count, ids }. */
export async function runSql(deps: SqlDeps, statement: string, params: unknown): Promise<Row[] | WriteResult> {
  const { alasql, root, classOf } = await parseChecked(statement);
  const kind = classOf.get(root);
  if (kind !== 'Select') {
    return write(deps, alasql, root, classOf, params);
  }
  const prepared = await prepare(deps, alasql, root, classOf, params);
  if (root.explain) return prepared.plan;
  return cleanRows(runSelect(alasql, root, prepared.tables, prepared.params));
}

export const refuseKind = (kind: string | undefined) =>
  SQL_ERRORS.refused(`Only SELECT, INSERT, UPDATE and DELETE run here (got ${kind ?? 'an unknown statement'}).`, { details: { construct: kind ?? 'unknown' } });
