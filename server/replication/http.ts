import type { Response } from 'express';

/** CouchDB-style error body: PouchDB's http adapter reads `error` and `reason` (and the status). */
export function sendError(res: Response, status: number, error: string, reason: string): void {
  if (res.headersSent) {
    // a streamed answer (longpoll heartbeat) already started: end it; the client retries
    res.end();
    return;
  }
  res.status(status).json({ error, reason });
}

/** PouchDB errors carry status/name/message; anything else is a 500 without internals. */
export function sendPouchError(res: Response, err: unknown): void {
  const e = err as { status?: number; name?: string; error?: string; message?: string; reason?: string };
  const status = typeof e?.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : 500;
  const error = typeof e?.name === 'string' && status !== 500 ? e.name : typeof e?.error === 'string' ? e.error : 'internal_error';
  const reason = status === 500 ? 'The database could not answer.' : (e?.reason ?? e?.message ?? 'unknown');
  sendError(res, status, error === 'Error' ? 'internal_error' : error, reason);
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
