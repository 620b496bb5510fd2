import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger, ServerConfig } from './context.js';

/** One log line per request: method, path (no query string: it may carry tokens), status, duration. */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      // originalUrl: the full path whatever router answered; cut at '?' so query strings (tokens) stay out
      log(`${req.method} ${req.originalUrl.split('?')[0]} ${res.statusCode} ${ms.toFixed(1)}ms`);
    });
    next();
  };
}

/** Until start-up has finished every request is answered at once: 503, JSON, Retry-After. */
export function readinessGate(isReady: () => boolean): RequestHandler {
  return (_req, res, next) => {
    if (isReady()) return next();
    res.status(503).set('Retry-After', '1').json({ error: 'not_ready', reason: 'The node is starting; retry in a moment.' });
  };
}

/** CORS only in development, for one configured origin, with credentials. */
export function developmentCors(config: ServerConfig): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    if (!config.development || !config.corsOrigin || origin !== config.corsOrigin) return next();
    res.set({
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
      Vary: 'Origin',
    });
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
}

/** JSON errors for whatever reached the end: body too large (413), bad JSON (400), the rest 500. */
export function errorHandler(log: Logger) {
  return (err: { status?: number; type?: string; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    if (err.type === 'entity.too.large') return void res.status(413).json({ error: 'payload_too_large', reason: 'The request body is larger than the limit.' });
    if (err.type === 'entity.parse.failed') return void res.status(400).json({ error: 'bad_request', reason: 'The request body is not valid JSON.' });
    const status = err.status && err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500) log(`error: ${err.message ?? String(err)}`);
    res.status(status).json({ error: status >= 500 ? 'internal_error' : 'bad_request', reason: status >= 500 ? 'Something went wrong on the node.' : (err.message ?? '') });
  };
}

export function notFound(_req: Request, res: Response): void {
  res.status(404).json({ error: 'not_found', reason: 'No such route.' });
}
