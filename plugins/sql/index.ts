import { domainsPlugin } from '../domains/index.js';
import type { AlaSQL } from './alasql.js';
import { NO_BUDGET, runSql, type PlanRow, type SqlDeps, type SqlRunOptions, type WriteResult } from './engine.js';
import { REMOTE_BUDGET, type SqlBudget } from './budget.js';
import { sqlErrorList } from './errors.js';
import { countMatches } from './count.js';
import { findCandidates } from './find.js';
import { indexedKey } from './indexed-key.js';
import { IndexSet, indexedAttributes, type IndexProgress } from './indexes/index-set.js';
import type { Row } from './rows.js';
import { SqlStore } from './store.js';
import { LiveSql } from './live.js';
import { DocCache } from './doc-cache.js';
import { definePlugin } from '../../index.js';
import { tapWhen } from '../../kit/index.js';

const DEFAULT_CACHE = 20_000;

export interface SqlOptions {
  /** documents read through indexes kept in memory, by revision (default 20,000; 0: none) */
  cacheSize?: number;
  /** the alasql module (`import alasql from 'alasql'`): a browser app passes it; Node loads it on the first statement */
  alasql?: AlaSQL;
  /**
   * What one statement may cost (rows read, join combinations, LIKE steps) before it is refused
   * with DS_SQL_BUDGET; none by default for the stack's own statements (a call may pass its own:
   * the server node gives remote callers REMOTE_BUDGET, docs/sql.md#cost-limits).
   */
  budget?: Partial<SqlBudget>;
}

/** `?` placeholders take an array, `$name` ones an object. */
export type SqlParams = readonly unknown[] | Record<string, unknown>;

/** The sql plugin's API (`getApi(stack, sqlPlugin)`); `stack.sql` is its `sql`. */
export interface SqlApi {
  /**
   * Runs one statement: SELECT → rows, EXPLAIN SELECT → the plan, INSERT/UPDATE/DELETE →
   * `{ count, ids }` (type it: `stack.sql<WriteResult>(…)`). Values go in `params`, never into
   * the statement's text.
   */
  sql<T = Row[]>(statement: string, params?: SqlParams, options?: SqlRunOptions): Promise<T>;
  /**
   * A SELECT that follows the store (docs/live-queries.md#sql): its rows now (`ready`,
   * `current`, `subscribe`), then again after each tick with a change to a class or relation
   * domain it reads, published when the rows differ; `close()` stops it. DS_SQL_SYNTAX for a
   * statement that is not a SELECT.
   */
  liveSql(statement: string, params?: SqlParams): LiveSql;
  /** Rebuilds a class's secondary index from its documents now (`sql:index` progress events). */
  rebuildIndex(className: string): Promise<void>;
}

/**
 * SQL over the document store (alasql for the language): tables are classes and relation
 * domains, reads go through the cheapest path (primary key, `indexed: true` attributes, `_id`
 * ranges, else the class scan) and through `afterRead`; writes go through the pipeline.
 */
export const sqlPlugin = definePlugin<SqlOptions | undefined, SqlApi, { sql: SqlApi['sql']; liveSql: SqlApi['liveSql'] }>({
  name: 'sql',
  optional: ['domains'],
  errors: sqlErrorList,
  setup({ hooks, stack, defineConfigKey, use }, options): SqlApi {
    defineConfigKey(indexedKey);
    const store = new SqlStore(stack);
    const indexes = new IndexSet(stack, store);
    const cache = new DocCache(options?.cacheSize ?? DEFAULT_CACHE);
    const deps: SqlDeps = { stack, store, indexes, domains: use(domainsPlugin), cache, budget: { ...NO_BUDGET, ...options?.budget }, ...(options?.alasql ? { alasql: options.alasql } : {}) };
    // before the after-triggers (stage 0): a reaction that queries sees its cause indexed
    hooks.afterWrite.tapPromise(tapWhen('sql', (model) => indexedAttributes(model).length > 0, -100), async (docs, ctx) => {
      if (indexedAttributes(ctx.classModel).length === 0) return;
      for (const doc of docs) await indexes.written(doc, ctx.classModel);
    });
    hooks.findCandidates.tapPromise('sql', (selector, ctx) => findCandidates(deps, selector, ctx));
    hooks.countMatches.tapPromise('sql', (selector, ctx) => countMatches(deps, selector, ctx));
    hooks.onClose.tapPromise('sql', async () => {
      cache.clear();
      await indexes.flush();
    });
    return {
      sql: <T>(statement: string, params?: SqlParams, runOptions?: SqlRunOptions) => runSql(deps, statement, params, runOptions) as Promise<T>,
      liveSql: (statement, params) => new LiveSql(stack, statement, () => runSql(deps, statement, params) as Promise<Row[]>),
      rebuildIndex: async (className) => {
        await indexes.rebuild(await stack.requireClass(className));
      },
    };
  },
  members: (api) => ({ sql: api.sql, liveSql: api.liveSql }),
});

export { REMOTE_BUDGET };
/** RE2's linear-time matching (what LIKE runs on): a server matches remote `$regex` with it too */
export {  compileLinear  } from '../../kit/index.js';
/** alasql, loaded now (a server loads it at start: its first load holds the event loop) */
export { loadAlasql } from './alasql.js';
export type { LiveSql };
export type { IndexProgress, PlanRow, Row, SqlBudget, SqlRunOptions, WriteResult };
