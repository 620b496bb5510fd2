import express from 'express';
import { KERNEL_ERRORS, type ClientStack } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { loadAlasql, type ServerStack } from '../../plugins.config.js';
import { callerOf } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { refuseUnreadableTables, runAsCaller } from './api-access.js';
import { remoteSqlOptions, takeQuerySlot, warmLinearRegex } from './query-limits.js';
import { stackForRequest } from './docs.js';

/**
 * `POST /api/private/sql` { statement, params? }: one statement of the sql plugin (docs/sql.md).
 * It runs as the caller: its writes pass the node's authorization and the pipeline, and a
 * statement naming a class the caller may not read over replication is refused (403).
 * SELECT answers `{ rows }`, INSERT/UPDATE/DELETE `{ count, ids }`. Each statement takes one of
 * the caller's query slots (429 past QUERY_CONCURRENCY) and runs within the node's SQL budget and
 * deadline (422 DS_SQL_BUDGET past them): docs/sql.md#cost-limits.
 */
export function createSqlRouter(ctx: NodeContext): express.Router {
  const router = express.Router();
  warmLinearRegex();
  // alasql's first load parses ~1 MB synchronously (0.5 s under load, measured in bench/hostile-load):
  // paid at start-up, not by the first caller's statement and everyone waiting behind it
  loadAlasql().catch(() => undefined);
  router.post('/sql', async (req, res) => {
    try {
      const { statement, params } = isPlainObject(req.body) ? req.body : ({} as Record<string, unknown>);
      if (typeof statement !== 'string' || statement.trim() === '' || statement.length > 100_000) {
        throw SERVER_ERRORS.requestInvalid('The body must be { "statement": "SELECT …", "params"?: [...] | {...} }.', { path: 'statement' });
      }
      if (params !== undefined && !Array.isArray(params) && !isPlainObject(params)) throw SERVER_ERRORS.requestInvalid('params must be a list (for ?) or an object (for $name).', { path: 'params' });
      const stack = (await stackForRequest(ctx, req, res)) as unknown as Partial<ServerStack>;
      takeQuerySlot(ctx, res);
      const sql = stack.sql;
      if (!sql) throw KERNEL_ERRORS.pluginMissingRequirement('This node runs without the sql plugin.', { details: { requires: 'sql' } });
      const caller = callerOf(res);
      await refuseUnreadableTables(stack as unknown as ClientStack, caller, statement);
      const options = remoteSqlOptions(ctx, res);
      const result = await runAsCaller(caller, () => sql(statement, params as never, options));
      res.json(Array.isArray(result) ? { rows: result } : result);
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });
  return router;
}
