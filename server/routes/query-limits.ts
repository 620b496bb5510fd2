import type { Response } from 'express';
import type { FindOptions } from '../../index.js';
import { compileLinear, REMOTE_BUDGET, type SqlRunOptions } from '../../plugins.config.js';
import { callerOf } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { QUERY_LIMIT_ERRORS } from './query-errors.js';
import { DEFAULT_QUERY_DEADLINE_MS, DEFAULT_QUERY_LOOP_SHARE, QueryPacer } from './query-pacer.js';


/** Remote queries (SQL, listings with a selector or a sort) running at once per user, by default. */
export const DEFAULT_QUERY_CONCURRENCY = 2;
export { DEFAULT_QUERY_DEADLINE_MS } from './query-pacer.js';

const running = new WeakMap<NodeContext, Map<string, number>>();

/**
 * Takes one of the caller's query slots for the length of the request: past QUERY_CONCURRENCY
 * running at once, the request is answered 429 DS_QUERY_BUSY at once (no queue, no read), so a
 * handful of costly queries of one user cannot take the node's CPU from everyone. The slot is
 * given back when the answer is sent or the connection closes, whichever comes first.
 */
export function takeQuerySlot(ctx: NodeContext, res: Response): void {
  const limit = ctx.config.queryConcurrency ?? DEFAULT_QUERY_CONCURRENCY;
  const caller = callerOf(res);
  const key = caller.userId || 'anonymous';
  let slots = running.get(ctx);
  if (!slots) running.set(ctx, (slots = new Map()));
  const taken = slots.get(key) ?? 0;
  if (taken >= limit) {
    res.set('Retry-After', '1');
    throw QUERY_LIMIT_ERRORS.busy(`${caller.username || 'This caller'} already has ${taken} queries running (at most ${limit} at once): retry when one is answered.`, { details: { limit } });
  }
  slots.set(key, taken + 1);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const now = (slots.get(key) ?? 1) - 1;
    if (now <= 0) slots.delete(key);
    else slots.set(key, now);
  };
  res.once('finish', release);
  res.once('close', release);
}

/** A signal aborted when the caller goes away (the connection closes before the answer). */
function goneSignal(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return gone.signal;
}

/** The signal that ends a remote query at the node's deadline (QUERY_DEADLINE_MS), or when its caller goes away. */
export function querySignal(ctx: NodeContext, res: Response): AbortSignal {
  return AbortSignal.any([AbortSignal.timeout(ctx.config.queryDeadlineMs ?? DEFAULT_QUERY_DEADLINE_MS), goneSignal(res)]);
}

/**
 * Compiles one pattern now: RE2's code is cold on a node's first `$regex` or LIKE set (~25–35 ms
 * to compile there, ~1 ms after), a stall better paid at start-up than by a caller's query.
 */
export function warmLinearRegex(): void {
  compileLinear('^(a+)+[b-d]$', true);
}

const pacers = new WeakMap<NodeContext, QueryPacer>();

/** This request's pacing on the node's one pacer (QUERY_LOOP_SHARE: remote queries' share of the event loop). */
function pacing(ctx: NodeContext, res: Response): () => Promise<void> {
  let pacer = pacers.get(ctx);
  if (!pacer) pacers.set(ctx, (pacer = new QueryPacer((ctx.config.queryLoopSharePercent ?? DEFAULT_QUERY_LOOP_SHARE * 100) / 100)));
  const query = pacer.query(performance.now() + (ctx.config.queryDeadlineMs ?? DEFAULT_QUERY_DEADLINE_MS));
  res.once('finish', query.done);
  res.once('close', query.done);
  return query.pause;
}

/** How a remote listing reads: `$regex` in linear time (RE2), stopped at the deadline. */
export function remoteFindOptions(ctx: NodeContext, res: Response): Pick<FindOptions, 'regex' | 'signal' | 'pace'> {
  return { regex: (pattern) => compileLinear(pattern), signal: querySignal(ctx, res), pace: pacing(ctx, res) };
}

/** How a remote statement runs: the node's SQL budget, stopped at the deadline (counted from its parse) or when its caller goes away. */
export function remoteSqlOptions(ctx: NodeContext, res: Response): SqlRunOptions {
  return { budget: ctx.config.sqlBudget ?? REMOTE_BUDGET, deadlineMs: ctx.config.queryDeadlineMs ?? DEFAULT_QUERY_DEADLINE_MS, signal: goneSignal(res), pace: pacing(ctx, res) };
}
