import type { Response } from 'express';
import { DocstackError, KERNEL_ERRORS } from '../index.js';
import { SERVER_ERRORS } from './errors-codes.js';

/**
 * The one error renderer of the node. Every error answer is CouchDB-shaped — `{ error, reason }`,
 * what stock PouchDB reads — plus `code` (always) and `path` (when an attribute is at fault).
 * The status is the code's registered status (contracts/errors.ts, each plugin's errors.ts,
 * server/errors-codes.ts): never guessed from the code's name.
 */

/** CouchDB's `error` word for each status the node answers with. */
const ERROR_WORDS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'file_exists',
  413: 'payload_too_large',
  429: 'too_many_requests',
  500: 'internal_error',
  501: 'not_implemented',
  503: 'unavailable',
};

export function errorWord(status: number): string {
  return ERROR_WORDS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

/** What anything thrown becomes: a DocstackError as it is, body-parser's errors coded, the rest internal. */
export function toDocstackError(err: unknown): DocstackError {
  if (err instanceof DocstackError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number; name?: string; message?: string; reason?: string } | null;
  if (e?.type === 'entity.too.large') return SERVER_ERRORS.requestTooLarge('The request body is larger than the limit.');
  if (e?.type === 'entity.parse.failed') return SERVER_ERRORS.requestInvalid('The request body is not valid JSON.');
  const status = e?.status ?? e?.statusCode;
  // PouchDB's own refusals (a missing document, a conflict) carry a 4xx and a safe message
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const reason = e?.reason ?? e?.message ?? 'Bad request.';
    if (status === 404) return SERVER_ERRORS.documentMissing(reason === 'missing' || reason === 'deleted' ? reason : 'missing');
    if (status === 409) return KERNEL_ERRORS.docConflict(reason);
    return SERVER_ERRORS.requestInvalid(reason, { status });
  }
  return SERVER_ERRORS.nodeInternal('The node could not handle the request.', { cause: err });
}

/**
 * Answers with the error. An unexpected failure answers a generic reason (its message may hold
 * internals) and is logged — its message only, quoted, never the request.
 */
export function sendError(res: Response, err: unknown, log?: (line: string) => void): void {
  const error = toDocstackError(err);
  if (error.code === 'DS_NODE_INTERNAL') {
    const cause = error.cause as Error | undefined;
    log?.(`error: ${JSON.stringify(`${cause?.name ?? 'Error'}: ${cause?.message ?? String(cause)}`)}`);
  }
  if (res.headersSent) {
    // a streamed answer (a longpoll heartbeat) already started: end it; the client retries
    res.end();
    return;
  }
  const body: Record<string, unknown> = { error: errorWord(error.status), reason: error.message, code: error.code };
  if (error.path !== undefined) body.path = error.path;
  res.status(error.status).json(body);
}

/** The HTTP status anything thrown is answered with. */
export function statusOf(err: unknown): number {
  return toDocstackError(err).status;
}
