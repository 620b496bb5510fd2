import type { RequestHandler } from 'express';

/** The default of REFUSAL_PACE_MS (server/config.ts, docs/server.md "Operations"). */
export const DEFAULT_REFUSAL_PACE_MS = 400;

/** 429s, and the 503 of a full password-hashing gate (a flood from many addresses meets that one). */
function isPaced(status: number, body: unknown): boolean {
  return status === 429 || (status === 503 && (body as { code?: unknown } | null)?.code === 'DS_AUTH_BUSY');
}

/**
 * Holds every 429 answer (and 503 DS_AUTH_BUSY) for `ms` before sending it. A refused client that retries at once — 60
 * bad-login loops against the limiter, a query loop against its user's slots — otherwise gets
 * thousands of cheap refusals a second, and answering them took the node's event loop from
 * everyone (bench/hostile-load: ~2,000 refusals/s, normal writes timing out). Held, each loop
 * makes at most 1000/ms requests a second while every refusal still comes within a second; the
 * pause is a timer, no work. A client that goes away meanwhile is simply not answered.
 */
export function paceRefusals(ms: number): RequestHandler {
  return (_req, res, next) => {
    if (ms <= 0) return next();
    const json = res.json.bind(res);
    res.json = ((body: unknown) => {
      if (!isPaced(res.statusCode, body)) return json(body);
      const timer = setTimeout(() => {
        if (!res.writableEnded && !res.destroyed) json(body);
      }, ms);
      res.once('close', () => clearTimeout(timer));
      return res;
    }) as typeof res.json;
    next();
  };
}
