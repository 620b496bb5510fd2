import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { authorize, callerOf } from './authorization/index.js';
import type { Logger, ServerConfig } from './context.js';
import { SERVER_ERRORS } from './errors-codes.js';
import { errorWord, sendError } from './errors.js';
import { SURFACE_ERRORS } from './errors-surface.js';
import { TOKEN_COOKIE } from './auth/cookies.js';

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

/**
 * Security headers on every answer (helmet). The node answers JSON only, never a page: the
 * content security policy allows nothing (`default-src 'none'`, no framing), nosniff, no
 * referrer. Cross-origin reads stay CORS's to decide (./cors below): with CORS_ORIGINS set, the
 * resource policy lets those apps read answers; HSTS only outside development (plain http there).
 */
export function securityHeaders(config: ServerConfig): RequestHandler {
  const crossOriginApps = (config.corsOrigins ?? []).length > 0 || (config.development && config.corsOrigin !== null);
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: crossOriginApps ? 'cross-origin' : 'same-origin' },
    strictTransportSecurity: config.development ? false : { maxAge: 15_552_000, includeSubDomains: true },
    referrerPolicy: { policy: 'no-referrer' },
  });
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

/** The GET routes that change state (the specification names GET for them): guarded like a POST. */
const STATE_CHANGING_GET = /^\/api\/private\/(reset|clear)(\/|:|$)/;

/**
 * CSRF defence. A request whose credential is the session cookie (no Basic, no Bearer: a browser
 * sends the cookie by itself, also on a page of another site when SameSite is lax or none) must
 * come from the node's own origin or from CORS_ORIGINS, for every unsafe method and for the GET
 * routes that change state (reset, clear). Judged on what browsers send: `Origin` (every
 * cross-origin POST/PUT/DELETE) else `Sec-Fetch-Site`. A request with neither is no browser's
 * cross-site request and passes — except the state-changing GETs, which need a browser to say
 * `same-origin`/`none` (or a non-cookie credential). Bearer and Basic clients (stock PouchDB)
 * are not affected: a page elsewhere cannot make the browser send those.
 */
export function refuseCrossSite(config: ServerConfig): RequestHandler {
  const allowed = new Set(config.corsOrigins ?? []);
  if (config.development && config.corsOrigin) allowed.add(config.corsOrigin);
  return (req, res, next) => {
    const stateChangingGet = (req.method === 'GET' || req.method === 'HEAD') && STATE_CHANGING_GET.test(req.path);
    if ((req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') && !stateChangingGet) return next();
    if (/^(basic|bearer)\s/i.test(req.get('authorization') ?? '')) return next();
    if (!hasSessionCookie(req)) return next();
    const origin = req.get('origin');
    const site = req.get('sec-fetch-site');
    let sameSite: boolean;
    if (origin !== undefined && origin !== 'null') sameSite = allowed.has(origin) || isOwnOrigin(origin, req);
    else if (origin === 'null') sameSite = false; // a sandboxed frame, a data: page
    else if (site !== undefined) sameSite = site === 'same-origin' || site === 'none';
    else sameSite = !stateChangingGet;
    if (sameSite) return next();
    sendError(res, SURFACE_ERRORS.crossSite(`A request with the session cookie from another site (${origin ?? `Sec-Fetch-Site: ${site ?? 'absent'}`}) is refused; send it from this node's origin or a CORS_ORIGINS origin, or authenticate with a Bearer token or Basic credentials.`));
  };
}

function hasSessionCookie(req: Request): boolean {
  const raw = req.headers.cookie;
  return typeof raw === 'string' && raw.includes(`${TOKEN_COOKIE}=`);
}

/** The Origin names the host the request was sent to (the node's own page, whatever the scheme behind a proxy). */
function isOwnOrigin(origin: string, req: Request): boolean {
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

/**
 * A request Node's HTTP parser refused before Express saw it (its `clientError` event): answered
 * like every refusal, JSON `{ error, reason, code }`, then the connection closes. Without this
 * handler Node answers 431 / 400 with an empty body.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? SURFACE_ERRORS.headersTooLarge('The request headers are too large.')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? SERVER_ERRORS.requestInvalid('The request took too long to arrive.', { status: 408 })
        : SERVER_ERRORS.requestInvalid('The request is not valid HTTP.');
  const body = JSON.stringify({ error: errorWord(error.status), reason: error.message, code: error.code });
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** Whatever reached the end: body too large (413), bad JSON (400), the rest 500 — one renderer. */
export function errorHandler(log: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, err, log);
}

export function notFound(req: Request, res: Response): void {
  sendError(res, SERVER_ERRORS.routeNotFound(`No route answers ${req.method} ${req.path.slice(0, 200)}.`));
}
