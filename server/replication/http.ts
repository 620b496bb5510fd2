import type { Response } from 'express';

import type { DocstackError } from '../../index.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { sendError as renderError } from '../errors.js';

/** Replication refusals by the CouchDB status they answer with; rendered by the node's one renderer. */
const BY_STATUS: Record<number, (reason: string) => DocstackError> = {
  400: (reason) => SERVER_ERRORS.requestInvalid(reason),
  403: (reason) => SERVER_ERRORS.replicationForbidden(reason),
  405: (reason) => SERVER_ERRORS.methodNotAllowed(reason),
  412: (reason) => SERVER_ERRORS.databaseExists(reason),
  503: (reason) => SERVER_ERRORS.nodeNotReady(reason),
};

/** A CouchDB-shaped refusal (`error`, `reason`, plus `code`): `kind` picks the 404's code. */
export function sendError(res: Response, status: number, kind: 'database' | 'document' | 'route' | string, reason: string): void {
  const error =
    status === 404
      ? kind === 'database'
        ? SERVER_ERRORS.databaseNotFound(reason)
        : kind === 'route'
          ? SERVER_ERRORS.routeNotFound(reason)
          : SERVER_ERRORS.documentMissing(reason)
      : (BY_STATUS[status] ?? ((r: string) => SERVER_ERRORS.requestInvalid(r, { status })))(reason);
  renderError(res, error);
}

/** PouchDB errors carry status/name/message; anything else is a 500 without internals. */
export function sendPouchError(res: Response, err: unknown): void {
  renderError(res, err);
}

/** Query values are strings; CouchDB takes JSON for some (`open_revs`, `keys`, `since` objects). */
export function jsonParam(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function boolParam(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  return value === 'true' || value === true || value === '1';
}

export function intParam(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}
