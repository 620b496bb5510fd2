import { AsyncLocalStorage } from 'node:async_hooks';
import { type ClientStack, type Doc } from '../../index.js';
import { authorize, canRead, classifyWrite, refusePlaintext, type Caller } from '../authorization/index.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/**
 * The session a route of the HTTP document API passes to the pipeline (`createDoc(…, { session })`):
 * who writes. Plugins that judge a write by its author (quotas) read `ctx.session.caller`, as
 * they read a replication push's `PeerPush.caller`.
 */
export class ApiWrite {
  constructor(readonly caller: Caller) {}
}

/**
 * The caller of an SQL statement run over HTTP. `stack.sql` takes no session, so the route runs
 * the statement inside this scope and the validate tap below finds the caller here: the
 * statement's writes are authorized by the same rules as every other path.
 */
const sqlScope = new AsyncLocalStorage<Caller>();

export function runAsCaller<T>(caller: Caller, fn: () => Promise<T>): Promise<T> {
  return sqlScope.run(caller, fn);
}

/** The one authorization check for a document a route writes (server/authorization). */
export function authorizeWrite(caller: Caller, className: string, doc: Record<string, unknown>, previous?: Doc | null): void {
  const id = typeof doc._id === 'string' ? doc._id : `${className}-`;
  authorize(caller, { type: 'write', subject: classifyWrite(id, { ...doc, '~class': className }, previous ?? null) });
}

const tapped = new WeakSet<ClientStack>();

/**
 * Once per stack: a validate tap that authorizes the writes of an SQL statement (depth 0, origin
 * local, inside runAsCaller: a trigger's writes, depth ≥ 1, are the engine's) and of the document
 * API (ApiWrite, also checked by the route before the pipeline runs: a `simple` class skips validate).
 */
export function enforceApiAccess(stack: ClientStack): void {
  if (tapped.has(stack)) return;
  tapped.add(stack);
  stack.hooks.validate.tapPromise({ name: 'node-api-authorization', stage: -100 }, async (draft, ctx) => {
    const caller = ctx.session instanceof ApiWrite ? ctx.session.caller : ctx.depth === 0 && ctx.origin === 'local' ? sqlScope.getStore() : undefined;
    if (!caller) return;
    authorize(caller, { type: 'write', subject: classifyWrite(draft._id, draft, ctx.previous ?? null) });
    if (ctx.op !== 'delete') refusePlaintext(ctx.classModel, draft);
  });
}

/**
 * Refuses an SQL statement that names a class whose documents the caller may not read over
 * replication (visibility.ts). Only `~` classes can be such a class, and the sql plugin takes
 * table names as plain identifiers, so every one is a `~name` token of the statement; a token
 * that names no class (a system column such as `~createTimestamp`) is not a table.
 */
export async function refuseUnreadableTables(stack: ClientStack, caller: Caller, statement: string): Promise<void> {
  for (const name of new Set(statement.match(/~[A-Za-z_][A-Za-z0-9_]*/g) ?? [])) {
    if (canRead(caller, `${name}-x`) || !(await stack.classCache.get(name))) continue;
    throw SERVER_ERRORS.authzInternal(`The statement reads ${name}, whose documents this caller may not read.`, { path: name, details: { className: name } });
  }
}
