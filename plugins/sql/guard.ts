import type { AlaSQL, Node } from './alasql.js';
import { SQL_ERRORS } from './errors.js';

/** The node classes a statement may hold: everything else is refused (DS_SQL_REFUSED). */
const ALLOWED = new Set([
  'Select', 'Column', 'Op', 'UniOp', 'NumValue', 'StringValue', 'LogicValue', 'NullValue', 'ParamValue', 'AggrValue', 'FuncValue',
  'CaseValue', 'ExistsValue', 'Table', 'Join', 'Expression', 'OrderExpression', 'GroupExpression', 'Insert', 'Update', 'Delete',
  'SetColumn', 'Convert',
]);

/** What a refused class is, for the message. */
const CONSTRUCTS: Record<string, string> = {
  CreateTable: 'CREATE TABLE', DropTable: 'DROP TABLE', AlterTable: 'ALTER TABLE', AttachDatabase: 'ATTACH', CreateDatabase: 'CREATE DATABASE',
  Require: 'REQUIRE', JavaScript: 'JavaScript in a statement', VarValue: '@variables', Json: 'JSON literals', Search: 'SEARCH', FromData: 'FROM a parameter or a function',
  SetVariable: 'SET', DomainValueValue: 'the reserved word VALUE (a column named value is written "value")', Declare: 'DECLARE', Source: 'SOURCE', CreateIndex: 'CREATE INDEX', Apply: 'APPLY', Over: 'window functions (OVER)',
};

/** The only string-valued keys alasql's nodes may carry here; each is checked below. */
const STRING_KEYS = new Set(['columnid', 'tableid', 'as', 'joinmode', 'op', 'value', 'param', 'direction', 'funcid', 'aggregatorid', 'dbtypeid']);
const OPS = new Set(['=', '!=', '<>', '<', '<=', '>', '>=', 'AND', 'OR', 'NOT', 'LIKE', 'NOT LIKE', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN', 'IS', '||', '+', '-', '*', '/', '%']);
const JOIN_MODES = new Set(['INNER', 'LEFT', 'RIGHT', 'OUTER']);
const AGGREGATES = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);
/** alasql's standard functions that compute on values only (none reaches outside the row). */
export const FUNCTIONS = new Set([
  'UPPER', 'LOWER', 'LENGTH', 'LEN', 'ABS', 'ROUND', 'CEIL', 'CEILING', 'FLOOR', 'COALESCE', 'IFNULL', 'NULLIF', 'SUBSTRING', 'SUBSTR',
  'TRIM', 'LTRIM', 'RTRIM', 'REPLACE', 'CONCAT', 'POWER', 'SQRT', 'MID', 'LEFT', 'RIGHT', 'IIF', 'YEAR', 'MONTH', 'DAY',
]);
/** Refused on any Select: results go to the caller, never into files or variables. */
const SELECT_REFUSED: Record<string, string> = { into: 'SELECT … INTO', pivot: 'PIVOT', unpivot: 'UNPIVOT', modifier: 'SELECT VALUE/ROW/COLUMN/MATRIX', top: 'TOP (use LIMIT)' };
/** A column, table or parameter name: it is spliced into the code alasql compiles, so no quote may reach it. */
export const NAME = /^~?[A-Za-z_][A-Za-z0-9_]*$/;
/** Output aliases may hold spaces too. */
const ALIAS = /^~?[A-Za-z_][A-Za-z0-9_ ]*$/;

const refuse = (construct: string, message?: string) =>
  SQL_ERRORS.refused(message ?? `The statement uses ${construct}, which the engine does not run.`, { details: { construct } });

/**
 * Checks a parsed statement against the allow-list, node by node: only SELECT, INSERT, UPDATE
 * and DELETE with expressions over values; names are plain identifiers; functions are
 * alasql's value functions. Returns the class name of every node (for the later passes).
 */
export function guard(alasql: AlaSQL, statement: Node): Map<Node, string> {
  const classOf = classNames(alasql);
  const seen = new Map<Node, string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object' || seen.has(node as Node)) return;
    const proto = Object.getPrototypeOf(node);
    const cls = proto === Object.prototype ? 'plain' : (classOf.get(proto) ?? 'unknown');
    if (cls !== 'plain' && !ALLOWED.has(cls)) throw refuse(CONSTRUCTS[cls] ?? cls);
    seen.set(node as Node, cls);
    const n = node as Node;
    if (cls === 'Select') {
      for (const [key, what] of Object.entries(SELECT_REFUSED)) if (n[key] !== undefined && n[key] !== null) throw refuse(what);
      for (const item of [...(n.from ?? []), ...(n.joins ?? []).map((j: Node) => j.table)]) {
        const itemClass = classOf.get(Object.getPrototypeOf(item));
        if (itemClass !== 'Table' && itemClass !== 'Select') throw refuse(`FROM ${CONSTRUCTS[itemClass ?? ''] ?? itemClass ?? 'something else'}`, 'FROM and JOIN name classes or relation domains (or a subquery), nothing else.');
      }
    }
    if (n.databaseid !== undefined) throw refuse('a database name', 'Tables are classes of this stack: no database prefix.');
    for (const [key, value] of Object.entries(n)) {
      if (typeof value === 'string') checkString(cls, key, value);
      else if (typeof value === 'function') throw refuse('a function value');
      else visit(value);
    }
  };
  visit(statement);
  return seen;
}

function checkString(cls: string, key: string, value: string): void {
  if (!STRING_KEYS.has(key)) throw refuse(`"${key}"`, `The statement uses a construct the engine does not run (${cls}.${key}).`);
  const ok =
    key === 'columnid' ? value === '*' || NAME.test(value)
    : key === 'tableid' ? NAME.test(value)
    : key === 'as' ? ALIAS.test(value)
    : key === 'op' ? OPS.has(value)
    : key === 'joinmode' ? JOIN_MODES.has(value)
    : key === 'param' ? NAME.test(value)
    : key === 'direction' ? value === 'ASC' || value === 'DESC'
    : key === 'funcid' ? FUNCTIONS.has(value.toUpperCase())
    : key === 'aggregatorid' ? AGGREGATES.has(value)
    : key === 'dbtypeid' ? /^[A-Za-z]+$/.test(value)
    : cls === 'StringValue'; // value: string literals only (they become parameters, see normalize)
  if (ok) return;
  if (key === 'funcid') throw refuse(`the function ${value}`, `${value}() is not one of the functions the engine runs: ${[...FUNCTIONS].join(', ')}.`);
  if (key === 'aggregatorid') throw refuse(`the aggregate ${value}`, `${value}() is not one of COUNT, SUM, AVG, MIN, MAX.`);
  if (key === 'joinmode') throw refuse(`${value} JOIN`);
  if (key === 'op') throw refuse(`the operator ${value}`);
  if (['columnid', 'tableid', 'as', 'param'].includes(key)) {
    throw refuse('a name that is not an identifier', `${JSON.stringify(value)} is not a name: names are letters, digits and "_" (system columns start with "~").`);
  }
  throw refuse(`${cls}.${key}`);
}

let cachedFor: AlaSQL | null = null;
let cachedNames = new Map<object, string>();

/** alasql's AST classes by prototype (its classes have no usable `name`). */
export function classNames(alasql: AlaSQL): Map<object, string> {
  if (cachedFor !== alasql) {
    const yy = (alasql as unknown as { yy: Record<string, unknown> }).yy;
    cachedNames = new Map(Object.entries(yy).filter(([, v]) => typeof v === 'function').map(([k, v]) => [(v as { prototype: object }).prototype, k]));
    cachedFor = alasql;
  }
  return cachedNames;
}
