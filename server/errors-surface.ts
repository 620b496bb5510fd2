import { createError } from '../index.js';
import { registerErrors } from '../kit/index.js';

/**
 * The error codes of the node's surface defences (issue 26): cross-site requests, content types,
 * oversized headers, what a peer may keep in `_local` documents. Documented in docs/errors.md.
 */
export const SURFACE_ERRORS = {
  crossSite: createError('DS_REQUEST_CROSS_SITE', "A request authenticated by the session cookie came from another site (Origin / Sec-Fetch-Site): refused so a page elsewhere cannot act with a user's cookie. Same-origin pages, CORS_ORIGINS and Bearer/Basic clients pass.", { status: 403 }),
  contentType: createError('DS_REQUEST_CONTENT_TYPE', 'The request body is not application/json (the replication endpoint reads JSON only, what CouchDB clients send).', { status: 415 }),
  headersTooLarge: createError('DS_REQUEST_HEADERS_TOO_LARGE', "The request's headers are larger than the node reads (Node's --max-http-header-size, 16 KB by default).", { status: 431 }),
  localLimit: createError('DS_REPLICATION_LOCAL_LIMIT', 'A peer\'s `_local` document (a replication checkpoint) is too large, or the user keeps too many of them on this database.', { status: 403 }),
};

registerErrors(Object.values(SURFACE_ERRORS), 'server');
