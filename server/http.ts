import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { authorize, callerOf } from './authorization/index.js';
import type { Logger, ServerConfig } from './context.js';
import { SERVER_ERRORS } from './errors-codes.js';
import { sendError } from './errors.js';

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

/**
 * An admin route: the caller must be an admin (`what` names the action in the 403), and any
 * failure of the handler is answered as the node answers errors, never left unhandled.
 */
export function adminRoute(log: Logger, what: string, handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res) => {
    try {
      authorize(callerOf(res), { type: 'admin', what });
      await handler(req, res);
    } catch (err) {
      sendError(res, err, log);
    }
  };
}

/** Until start-up has finished every request is answered at once: 503, JSON, Retry-After. */
export function readinessGate(isReady: () => boolean): RequestHandler {
  return (_req, res, next) => {
    if (isReady()) return next();
    res.set('Retry-After', '1');
    sendError(res, SERVER_ERRORS.nodeNotReady('The node is starting; retry in a moment.'));
  };
}

/**
 * CORS with credentials for the origins in CORS_ORIGINS (any environment: a browser app served
 * from another origin), and in development for CORS_ORIGIN. Other origins get no CORS headers.
 */
export function cors(config: ServerConfig): RequestHandler {
  const allowed = new Set(config.corsOrigins ?? []);
  return (req, res, next) => {
    const origin = req.get('origin');
    const allow = origin !== undefined && (allowed.has(origin) || (config.development && origin === config.corsOrigin));
    if (!allow) return next();
    res.set({
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization, Accept, X-Docstack-Tenant, Idempotency-Key, If-Match',
      'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    });
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
}

/** Whatever reached the end: body too large (413), bad JSON (400), the rest 500 — one renderer. */
export function errorHandler(log: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, err, log);
}

export function notFound(req: Request, res: Response): void {
  sendError(res, SERVER_ERRORS.routeNotFound(`No route answers ${req.method} ${req.path.slice(0, 200)}.`));
}
