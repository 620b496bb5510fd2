import type { WriteSession } from '../../index.js';
// Reading and planning a statement, apart from runSql: dml.ts uses them and runSql (engine.ts) uses dml.ts.
import type { DomainRegistry } from '../domains/index.js';
import { loadAlasql, type AlaSQL, type Node } from './alasql.js';
import { classNamesOf, resolveTable, type TableInfo } from './catalog.js';
import { useColumns } from './columns.js';
import { SQL_ERRORS } from './errors.js';
import type { DocCache } from './doc-cache.js';
import { guard } from './guard.js';
import type { IndexSet } from './indexes/index-set.js';
import { normalize, type TableRef } from './normalize.js';
import type { BoundParams } from './params.js';
import { parseStatement, readStatement } from './parse.js';
import { tableNames } from './names.js';
import { joinEdges, joinRanges, type JoinEdge } from './joins.js';
import { planAccess, type Access } from './plan.js';
import { conditionsOf, type Conditions } from './pushdown.js';
import { intersect } from './ranges.js';
import { readDocs } from './read.js';
import { refuseSealed, toRows, type Row } from './rows.js';
import { chargeRows, refuseAborted, refuseEstimated, type SqlBudget, type SqlLimits } from './budget.js';
import { installLinearLike } from './like.js';
import type { SqlStore } from './store.js';
import type { ClientStack, Doc } from '../../index.js';

export interface SqlDeps {
  stack: ClientStack;
  store: SqlStore;
  indexes: IndexSet;
  domains: DomainRegistry | undefined;
  /** documents read through indexes, by revision */
  cache: DocCache;
  /** the alasql module when the application gives it (a browser bundle), else loaded on first use */
  alasql?: AlaSQL;
  /** what every statement may cost unless its call says otherwise (the plugin's `budget` option) */
  budget: SqlBudget;
}

/** One call's own limits (a server passes its remote budget and a deadline). */
export interface SqlRunOptions {
  budget?: Partial<SqlBudget>;
  /** who runs the statement: every write it makes carries it (WriteContext.session) */
  session?: WriteSession;
  /** once aborted, reads stop between pages and nothing more runs (DS_SQL_BUDGET) */
  signal?: AbortSignal;
  /**
   * How long the statement may run (ms), counted once it is parsed: loading alasql on the first
   * statement (a cold import, seconds on a loaded machine) is not the caller's cost
   */
  deadlineMs?: number;
  /** awaited between pages of the statement's reads (a server's share of the event loop for remote statements) */
  pace?: () => Promise<void>;
}

export function limitsOf(deps: SqlDeps, options: SqlRunOptions | undefined): SqlLimits {
  const signals = [options?.signal, options?.deadlineMs !== undefined ? AbortSignal.timeout(options.deadlineMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  return { budget: { ...deps.budget, ...options?.budget }, ...(signal ? { signal } : {}), ...(options?.pace ? { pace: options.pace } : {}) };
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
  limits: SqlLimits;
}

/**
 * Parses and checks a statement: its root node and the class of every node. The classes it
 * names are looked up first: their attributes are names wherever they stand as names (names.ts).
 */
export async function parseChecked(deps: SqlDeps, statement: string): Promise<{ alasql: AlaSQL; root: Node; classOf: Map<Node, string> }> {
  const tokens = readStatement(statement);
  const alasql = await loadAlasql(deps.alasql);
  installLinearLike(alasql);
  const names = await classNamesOf(deps.stack, tableNames(tokens));
  const root = parseStatement(alasql, statement, names, tokens);
  return { alasql, root, classOf: guard(alasql, root) };
}

/**
 * Reads what a checked statement needs: for each table, the conditions it can use, the
 * cheapest path, the documents through that path (as a reader sees them), and the refusal of
 * sealed values it would compute on. `dml` is the SELECT an UPDATE/DELETE became.
 */
export async function prepare(deps: SqlDeps, alasql: AlaSQL, root: Node, classOf: Map<Node, string>, params: unknown, limits: SqlLimits, dml: Node | null = null): Promise<Prepared> {
  const { params: bound, tables: refs } = normalize(alasql, root, classOf, params);
  const infos = new Map<TableRef, TableInfo>();
  for (const ref of refs) infos.set(ref, await resolveTable(deps.stack, deps.domains, ref.name));
  const use = useColumns(classOf, refs, infos, dml);
  const prepared: Prepared = { alasql, params: bound, tables: new Map(), plan: [], refs, infos, raw: new Map(), limits };
  const counter = { rows: 0 };
  const onPage = async (count: number) => {
    refuseAborted(limits);
    chargeRows(limits, counter, count);
    if (limits.pace) {
      await limits.pace();
      refuseAborted(limits);
    }
  };
  const own = new Map(refs.map((ref) => [ref, conditionsOf(ref, infos.get(ref)!, classOf, bound, refs.filter((r) => r.select === ref.select).length)]));
  const plan = (ref: TableRef, conditions: Conditions) => planAccess(deps.stack, deps.indexes, infos.get(ref)!, conditions, use.includeInactive.has(ref));
  const first = new Map<TableRef, Access>();
  for (const ref of refs) first.set(ref, await plan(ref, own.get(ref)!));
  // a table that would be scanned but joins on one of its pushable columns to a table read
  // through an index is read second, through the values the first one holds
  const dependent = new Map<TableRef, JoinEdge>();
  for (const ref of refs) {
    if (first.get(ref)!.path !== 'scan') continue;
    const edge = joinEdges(ref, refs, classOf, infos).find((e) => pushable(infos.get(ref)!, e.column) && first.get(e.other)!.path !== 'scan');
    if (edge) dependent.set(ref, edge);
  }
  const read = async (ref: TableRef, access: Access, note?: { column: string; text: string }) => {
    const info = infos.get(ref)!;
    const { docs, read } = await readDocs(deps.stack, deps.store, info, access, deps.cache, onPage);
    const rows = await toRows(deps.stack, info, docs);
    refuseSealed(info, use.computed.get(ref)!, rows);
    prepared.tables.set(ref.key, rows);
    prepared.raw.set(ref, docs);
    const selector = note ? { ...access.selector, [note.column]: { $in: note.text } } : access.selector;
    prepared.plan[refs.indexOf(ref)] = { table: info.name, alias: ref.alias, path: access.path, selector, estimated: access.estimated, read };
  };
  // EXPLAIN is not refused for its combinations (it never runs them): it shows the plan
  if (!root.explain && (Number.isFinite(limits.budget.rows) || Number.isFinite(limits.budget.combinations))) {
    refuseEstimated(limits, await knownSizes(deps, refs.filter((r) => !dependent.has(r)), infos, first));
  }
  await Promise.all(refs.filter((r) => !dependent.has(r)).map((ref) => read(ref, first.get(ref)!)));
  for (const [ref, edge] of dependent) {
    const info = infos.get(ref)!;
    const ranges = joinRanges(edge, info.columns.get(edge.column)!, prepared.tables.get(edge.other.key)!);
    if (!ranges) {
      await read(ref, first.get(ref)!);
      continue;
    }
    const conditions = new Map(own.get(ref)!);
    const known = conditions.get(edge.column);
    conditions.set(edge.column, known ? intersect(known, ranges) : ranges);
    const access = await plan(ref, conditions);
    const note = access.path === 'scan' ? undefined : { column: edge.column, text: `${ranges.length} values of ${edge.other.alias}.${edge.otherColumn}` };
    await read(ref, access, note);
  }
  return prepared;
}

/** The rows each table will give before it is read, where known: an index's count, a whole active class's counter. */
async function knownSizes(deps: SqlDeps, refs: TableRef[], infos: Map<TableRef, TableInfo>, access: Map<TableRef, Access>): Promise<Array<{ table: string; rows: number }>> {
  const known: Array<{ table: string; rows: number }> = [];
  for (const ref of refs) {
    const info = infos.get(ref)!;
    const path = access.get(ref)!;
    const rows = path.estimated ?? (path.path === 'scan' && info.kind === 'class' && !path.includeInactive ? await deps.stack.classCounts.count(info.name) : null);
    if (rows !== null) known.push({ table: ref.alias ?? info.name, rows });
  }
  return known;
}

/** A column a read can be narrowed on: `_id`, an indexed attribute, a one-attribute primary key. */
function pushable(info: TableInfo, column: string): boolean {
  return column === '_id' || info.indexed.includes(column) || (info.primaryKey.length === 1 && info.primaryKey[0] === column);
}

export const refuseKind = (kind: string | undefined) =>
  SQL_ERRORS.refused(`Only SELECT, INSERT, UPDATE and DELETE run here (got ${kind ?? 'an unknown statement'}).`, { details: { construct: kind ?? 'unknown' } });
