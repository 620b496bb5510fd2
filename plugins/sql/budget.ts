import type { AlaSQL, Node } from './alasql.js';
import { SQL_ERRORS } from './errors.js';
import { metered } from './like.js';
import type { BoundParams } from './params.js';
import type { Row } from './rows.js';
import { runSelect } from './run.js';

/**
 * What one statement may cost. alasql runs a statement synchronously, holding the event loop
 * until it is done: a 4-way self-join over ~100 documents took 2–6 s. So the cost is bounded
 * before alasql starts, from the rows each table read (after the index pushdown): their
 * product — every combination a join may visit — and each table's rows, and LIKE's matching
 * is metered while it runs. Reads stop between pages once past the deadline (`signal`).
 * Calibrated in bench/query-cost.ts so that one admitted statement holds the loop < 50 ms here.
 */
export interface SqlBudget {
  /** documents read by one statement, all tables together */
  rows: number;
  /** the product of the tables' row counts (a join's worst case) */
  combinations: number;
  /** LIKE matching steps (a character scanned: 1; through RE2: 2,000) */
  likeSteps: number;
}

/** Without a budget (the default for a stack's own statements): nothing is refused for its cost. */
export const NO_BUDGET: SqlBudget = { rows: Infinity, combinations: Infinity, likeSteps: Infinity };

/** What the node gives remote statements unless told otherwise (SQL_BUDGET_* settings). */
export const REMOTE_BUDGET: SqlBudget = { rows: 20_000, combinations: 100_000, likeSteps: 20_000_000 };

/** One statement's limits: its budget, and the signal that ends it (a remote caller's deadline). */
export interface SqlLimits {
  budget: SqlBudget;
  signal?: AbortSignal;
  /** awaited between pages of reads: the caller's pacing (a remote statement's share of the event loop) */
  pace?: () => Promise<void>;
}

const overBudget = (message: string, details: Record<string, unknown>) => SQL_ERRORS.budget(message, { details });

/** Stops a statement whose deadline passed (checked between pages of reads and before alasql runs). */
export function refuseAborted(limits: SqlLimits): void {
  if (limits.signal?.aborted) throw overBudget('The statement ran past its deadline and was stopped: narrow it (WHERE on an indexed attribute, _id).', { reason: 'deadline' });
}

/** Refuses a statement once its reads pass the budget's rows. */
export function chargeRows(limits: SqlLimits, counter: { rows: number }, more: number): void {
  counter.rows += more;
  if (counter.rows > limits.budget.rows) {
    throw overBudget(`The statement reads more than ${limits.budget.rows} documents: narrow it with WHERE on an indexed attribute or _id.`, { reason: 'rows', budget: limits.budget.rows });
  }
}

/** The worst-case combinations of the tables read: the product of their row counts. */
export function combinations(tables: Map<string, Row[]>): number {
  let product = 1;
  for (const rows of tables.values()) product *= Math.max(1, rows.length);
  return product;
}

/**
 * Refuses a statement before anything is read when the tables' known sizes (a whole-class scan:
 * the class's counter; an index read: its count) already put it past the budget — a 4-way
 * self-join of a growing class used to read the class four times just to be refused.
 */
export function refuseEstimated(limits: SqlLimits, known: ReadonlyArray<{ table: string; rows: number }>): void {
  const rows = known.reduce((sum, k) => sum + k.rows, 0);
  if (rows > limits.budget.rows) {
    throw overBudget(`The statement would read about ${rows} documents, more than the budget of ${limits.budget.rows}: narrow it with WHERE on an indexed attribute or _id.`, { reason: 'rows', budget: limits.budget.rows, estimated: rows });
  }
  const worst = known.reduce((product, k) => product * Math.max(1, k.rows), 1);
  if (worst > limits.budget.combinations) {
    const counts = known.map((k) => `${k.table} ${k.rows}`).join(' × ');
    throw overBudget(`The statement's tables hold ${counts} rows: up to ${worst} combinations, more than the budget of ${limits.budget.combinations}. Narrow each table with WHERE (an indexed attribute, _id) or join fewer tables.`, {
      reason: 'combinations',
      combinations: worst,
      budget: limits.budget.combinations,
      estimated: true,
    });
  }
}

/** Runs a SELECT in alasql within the budget: refused before it starts when its combinations pass it. */
export function runWithin(limits: SqlLimits, alasql: AlaSQL, select: Node, tables: Map<string, Row[]>, params: BoundParams): unknown {
  refuseAborted(limits);
  const worst = combinations(tables);
  if (worst > limits.budget.combinations) {
    const counts = [...tables.values()].map((rows) => rows.length).join(' × ');
    throw overBudget(`The statement's tables hold ${counts} rows: up to ${worst} combinations, more than the budget of ${limits.budget.combinations}. Narrow each table with WHERE (an indexed attribute, _id) or join fewer tables.`, {
      reason: 'combinations',
      combinations: worst,
      budget: limits.budget.combinations,
    });
  }
  return metered(limits.budget.likeSteps, () => runSelect(alasql, select, tables, params));
}
