import type { Server, ServerOptions } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
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

/**
 * The body limit of the writes that carry attachments, when ATTACHMENT_BODY_LIMIT is not set:
 * 16 MiB. A file travels in JSON as base64 (4/3 of its bytes): a 5 MB photo is a 6.7 MB body,
 * and a default attachment attribute's 10 MiB file a 13.4 MB one. Every other body keeps
 * BODY_LIMIT (1 MB). A push batch of several large files can pass it: 413, and the peer's sync
 * reports it (give such a sync a smaller `batchSize`).
 */
export const ATTACHMENT_BODY_LIMIT_DEFAULT = 16 * 1024 * 1024;

/** A peer's push (`POST /db/:name/_bulk_docs`, `PUT /db/:name/:id`): the JSON writes that may carry files. */
export function carriesAttachments(req: Request): boolean {
  const path = req.baseUrl + req.path; // the whole path, in the app and in the /db router alike
  if (req.method === 'POST') return /^\/db\/[^/]+\/_bulk_docs\/?$/.test(path);
  return req.method === 'PUT' && /^\/db\/[^/]+\/[^_/][^/]*$/.test(path);
}

/** `PUT /api/private/docs/:class/:id/attachments/:name`: a file's bytes as the body. */
export function isAttachmentUpload(req: Request): boolean {
  return req.method === 'PUT' && /^\/api\/private\/docs\/[^/]+\/[^/]+\/attachments\/[^/]+$/.test(req.baseUrl + req.path);
}

/** JSON bodies: BODY_LIMIT, or ATTACHMENT_BODY_LIMIT for the writes that carry attachments. */
export function jsonBodies(config: Pick<ServerConfig, 'bodyLimit' | 'attachmentBodyLimit'>): RequestHandler {
  const type = ['application/json', 'application/*+json'];
  const normal = express.json({ limit: config.bodyLimit, type });
  const large = express.json({ limit: Math.max(config.bodyLimit, config.attachmentBodyLimit ?? ATTACHMENT_BODY_LIMIT_DEFAULT), type });
  // a file PUT on the document API is read raw by its own route (server/routes/attachments.ts), whatever its type
  return (req, res, next) => (isAttachmentUpload(req) ? next() : (carriesAttachments(req) ? large : normal)(req, res, next));
}
