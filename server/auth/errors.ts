import type { Response } from 'express';
import { DocstackError } from '../../kernel/errors.js';
import '../errors-codes.js'; // registers the node's own codes and their statuses

/**
 * JSON errors of the server node: `{ error, reason }` (CouchDB's shape, so stock PouchDB
 * clients understand them too), plus `code` and `path` when the engine refused something.
 * Shared by the auth routes, the seed routes and the replication endpoint.
 */

/** The short `error` word for each status we answer with. */
const ERROR_WORDS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'too_many_requests',
  500: 'internal_error',
  501: 'not_implemented',
  503: 'unavailable',
};

export function errorWord(status: number): string {
  return ERROR_WORDS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

export function httpError(res: Response, status: number, error: string, reason: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error, reason, ...extra });
}

/**
 * The HTTP status for any thrown value: a DocstackError's registered status; errors that carry their
 * own 4xx/5xx status (body-parser's 413 and JSON syntax 400) keep it; anything else is a 500.
 */
export function statusOf(err: unknown): number {
  // every code carries the status it was registered with (kernel/errors.ts, each plugin's errors.ts)
  if (err instanceof DocstackError) return err.status;
  const status = (err as { status?: unknown; statusCode?: unknown } | null)?.status ?? (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) return status;
  return 500;
}

/**
 * Answers with the error's status. An engine refusal carries its code, message and path; an
 * unexpected failure answers a generic reason (its message may hold internals) and is logged.
 */
export function sendError(res: Response, err: unknown, log?: (line: string) => void): void {
  const status = statusOf(err);
  if (err instanceof DocstackError) {
    const extra: Record<string, unknown> = { code: err.code };
    if (err.path !== undefined) extra.path = err.path;
    httpError(res, status, errorWord(status), err.message, extra);
    return;
  }
  if (status >= 500) {
    log?.(`error: ${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`);
    httpError(res, status, errorWord(status), 'The server could not handle the request.');
    return;
  }
  // body-parser errors: their messages are safe ("request entity too large", JSON syntax)
  httpError(res, status, errorWord(status), (err as Error)?.message ?? 'Bad request.');
}
