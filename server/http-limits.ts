import type { Server, ServerOptions } from 'node:http';
import type { ServerConfig } from './context.js';

/** The defaults of the HTTP_* settings (server/config.ts, docs/server.md "Operations"). */
export const HTTP_LIMIT_DEFAULTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};

/**
 * How long a client may take to send its request, and how many sockets it may hold. Node's own
 * defaults let a client trickle a body for 300 s (plus the 30 s between checks: a slow body to
 * /login was held 326 s in issue 26) and open sockets without limit. The request timeout counts
 * until the request is received, not while a response streams: a long-poll `_changes` feed is
 * not cut by it. Node answers 408 (or closes the socket) past either timeout.
 */
export function httpServerOptions(config: ServerConfig): ServerOptions {
  const requestTimeout = config.httpRequestTimeoutMs ?? HTTP_LIMIT_DEFAULTS.requestTimeoutMs;
  // Node refuses a headers timeout above the request timeout
  const headersTimeout = Math.min(config.httpHeadersTimeoutMs ?? HTTP_LIMIT_DEFAULTS.headersTimeoutMs, requestTimeout);
  return {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: config.httpKeepAliveTimeoutMs ?? HTTP_LIMIT_DEFAULTS.keepAliveTimeoutMs,
    // timeouts are enforced when connections are checked: often enough for the shortest one
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

/** Past the maximum, a new connection is closed at once (the ones open are served). */
export function limitConnections(server: Server, config: ServerConfig): void {
  server.maxConnections = config.httpMaxConnections ?? HTTP_LIMIT_DEFAULTS.maxConnections;
}
