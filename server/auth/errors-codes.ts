import { createError } from '../../index.js';
import { registerErrors } from '../../kit/index.js';

/**
 * The auth slice's own codes (docs/errors.md, "Node routes"): kept out of the shared
 * server/errors-codes.ts so slices that add codes do not edit one file.
 */
export const AUTH_ERRORS = {
  authBusy: createError('DS_AUTH_BUSY', 'The node is checking as many passwords as it may at once and its queue is full; retry after Retry-After seconds.', { status: 503 }),
};

registerErrors(Object.values(AUTH_ERRORS), 'server');
