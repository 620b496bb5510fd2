import type { AlaSQL, Node } from './alasql.js';
import { classTable, resolveTable, SYSTEM_COLUMNS, type TableInfo } from './catalog.js';
import { prepare, refuseKind, type SqlDeps, type WriteResult } from './prepare.js';
import { SQL_ERRORS } from './errors.js';
import { guard } from './guard.js';
import { runWithin, type SqlLimits } from './budget.js';
import { cleanRows } from './rows.js';
import { type Doc, DocstackError, type NewDoc, type WriteExtras, type WriteRequest } from '../../index.js';
import { createDraft, deleteDraft, nowIso, updateDraft } from '../../kit/index.js';

type Yy = Record<string, new (p: object) => Node>;
const yyOf = (alasql: AlaSQL) => (alasql as unknown as { yy: Yy }).yy;

/**
 * INSERT, UPDATE and DELETE, through the document pipeline (validation, defaults, triggers,
 * uniqueness, encryption), all rows in one call: a refused row refuses the statement and
 * nothing is stored. UPDATE and DELETE first run as a SELECT of the rows they touch (with the
 * same index pushdown), the SET expressions computed by alasql over each row.
 */
/** `extras`: the caller's session, carried by every write of the statement. */
export async function write(deps: SqlDeps, alasql: AlaSQL, root: Node, classOf: Map<Node, string>, params: unknown, limits: SqlLimits, extras: WriteExtras = {}): Promise<WriteResult> {
  const kind = classOf.get(root);
  if (kind === 'Insert') return insert(deps, alasql, root, classOf, params, limits, extras);
  if (kind !== 'Update' && kind !== 'Delete') throw refuseKind(kind);
  const info = await target(deps, root.table.tableid);
  const yy = yyOf(alasql);
  const sets: Node[] = kind === 'Update' ? root.columns : [];
  const names = sets.map((s) => writable(info, s.column.columnid));
  const columns = [new yy.Column({ columnid: '_id' }), ...sets.map((s, i) => Object.assign(s.expression, { as: `_set${i}` }))];
  const query = new yy.Select({ columns, from: [root.table], ...(root.where ? { where: new yy.Expression({ expression: root.where }) } : {}) });
  const queryClasses = guard(alasql, query);
  const prepared = await prepare(deps, alasql, query, queryClasses, params, limits, query);
  const rows = cleanRows(runWithin(limits, alasql, query, prepared.tables, prepared.params));
  const previous = new Map([...prepared.raw.values()].flat().map((d) => [d._id, d]));
  const now = nowIso(deps.stack.clock);
  const requests: WriteRequest[] = rows.map((row) => {
    const before = previous.get(row._id as string)!;
    if (kind === 'Delete') return { op: 'delete', draft: deleteDraft(before, now), previous: before, classModel: info.model! };
    const changes = Object.fromEntries(names.map((name, i) => [name, row[`_set${i}`]]));
    return { op: 'update', draft: updateDraft(before, changes, now, deps.stack.systemFields), previous: before, classModel: info.model! };
  });
  const stored = requests.length > 0 ? await deps.stack.writeRequests(requests, 'local', extras) : [];
  return { count: stored.length, ids: stored.map((d) => d._id) };
}

async function insert(deps: SqlDeps, alasql: AlaSQL, root: Node, classOf: Map<Node, string>, params: unknown, limits: SqlLimits, extras: WriteExtras): Promise<WriteResult> {
  const info = await target(deps, root.into.tableid);
  const named: string[] | undefined = root.columns?.map((c: Node) => c.columnid as string);
  if (!named) throw SQL_ERRORS.refused('INSERT names its columns: INSERT INTO Customer (name, age) VALUES (…) or … SELECT ….', { details: { construct: 'INSERT without columns' } });
  for (const column of root.columns as Node[]) classOf.delete(column); // names of the target, not of the tables read
  const yy = yyOf(alasql);
  let rows: unknown[][];
  if (root.select) {
    const prepared = await prepare(deps, alasql, root.select, classOf, params, limits);
    rows = cleanRows(runWithin(limits, alasql, root.select, prepared.tables, prepared.params)).map((r) => Object.values(r));
  } else {
    const prepared = await prepare(deps, alasql, root, classOf, params, limits);
    rows = (root.values as Node[][]).map((values) => {
      const query = new yy.Select({ columns: values.map((v, i) => Object.assign(v, { as: `_v${i}` })) });
      const [row] = cleanRows(runWithin(limits, alasql, query, new Map(), prepared.params));
      return values.map((_, i) => row[`_v${i}`]);
    });
  }
  const columns = named;
  for (const column of columns) if (column !== '_id') writable(info, column);
  const docs: NewDoc[] = rows.map((values, r) => {
    if (values.length !== columns.length) throw SQL_ERRORS.refused(`Row ${r + 1} has ${values.length} value(s) for ${columns.length} column(s).`, { details: { construct: 'INSERT arity', row: r + 1 } });
    const doc: Record<string, unknown> = { '~class': info.name };
    columns.forEach((c, i) => {
      if (values[i] !== null) doc[c] = values[i];
    });
    return doc as NewDoc;
  });
  if (docs.length === 0) return { count: 0, ids: [] };
  try {
    const stored = await deps.stack.createDocs(docs, extras);
    return { count: stored.length, ids: stored.map((d) => d._id) };
  } catch (err) {
    throw await nameRow(deps, info, docs, err, extras);
  }
}

/** A refused INSERT names its row: each row is checked alone (a dry run) until one fails the same way. */
async function nameRow(deps: SqlDeps, info: TableInfo, docs: NewDoc[], err: unknown, extras: WriteExtras): Promise<unknown> {
  if (!(err instanceof DocstackError) || docs.length === 1) return err;
  const named = (r: number, found: DocstackError) =>
    new DocstackError(err.code, `Row ${r + 1}: ${found.message}`, { path: found.path, details: { ...found.details, row: r + 1 }, cause: err });
  const owner = err.code === 'DS_UNIQUE_VIOLATION' ? err.details?.existingId : undefined;
  const now = nowIso(deps.stack.clock);
  for (let r = 0; r < docs.length; r++) {
    try {
      const draft = createDraft(docs[r], info.model!, undefined, now, deps.stack.systemFields);
      await deps.stack.checkRequests([{ op: 'create', draft, classModel: info.model! }], 'local', extras);
      // a dry run claims no key: a clash with a stored document is found through the key index
      const values = info.primaryKey.map((a) => draft[a]);
      if (owner && values.length > 0 && (await deps.stack.primaryKeys.lookup(info.name, values)) === owner) return named(r, err);
    } catch (rowErr) {
      if (rowErr instanceof DocstackError && rowErr.code === err.code) return named(r, rowErr);
    }
  }
  return err;
}

/** The class a statement writes: relation domains are written with their domain's API. */
async function target(deps: SqlDeps, name: string): Promise<TableInfo> {
  const info = await resolveTable(deps.stack, deps.domains, name);
  if (info.kind !== 'class') throw SQL_ERRORS.refused(`"${name}" is a relation domain: add and remove relations with its domain (stack.useDomain).`, { details: { construct: 'write to a relation table', table: name } });
  return classTable(info.model!);
}

/** A column a statement may set: an attribute of the class (system columns are the engine's). */
function writable(info: TableInfo, column: string): string {
  if (SYSTEM_COLUMNS.some(([c]) => c === column)) {
    throw SQL_ERRORS.refused(`"${column}" is set by the engine (DELETE deactivates a row).`, { path: column, details: { construct: 'a system column', column } });
  }
  if (!info.columns.has(column)) throw SQL_ERRORS.columnUnknown(`There is no column "${column}" in ${info.name}.`, { path: column, details: { table: info.name, column } });
  return column;
}
