import { NO_BUDGET, runWithin } from './budget.js';
import { write } from './dml.js';
import { limitsOf, parseChecked, prepare, type SqlDeps, type SqlRunOptions, type WriteResult } from './prepare.js';
import { cleanRows, type Row } from './rows.js';

// the plugin's entry imports these from here, beside runSql
export type { PlanRow, SqlDeps, SqlRunOptions, WriteResult } from './prepare.js';

/** SELECT → rows; EXPLAIN SELECT → one row per table read; INSERT/UPDATE/DELETE → { count, ids }. */
export async function runSql(deps: SqlDeps, statement: string, params: unknown, options?: SqlRunOptions): Promise<Row[] | WriteResult> {
  const { alasql, root, classOf } = await parseChecked(deps, statement);
  const limits = limitsOf(deps, options);
  const kind = classOf.get(root);
  if (kind !== 'Select') {
    return write(deps, alasql, root, classOf, params, limits, options?.session !== undefined ? { session: options.session } : {});
  }
  const prepared = await prepare(deps, alasql, root, classOf, params, limits);
  if (root.explain) return prepared.plan;
  return cleanRows(runWithin(limits, alasql, root, prepared.tables, prepared.params));
}

export { NO_BUDGET };
