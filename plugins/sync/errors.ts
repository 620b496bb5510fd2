import { createError } from '../../kernel/errors.js';

/** The error codes of the sync plugin (docs/errors.md). */
export const SYNC_ERRORS = {
  syncOptions: createError('DS_SYNC_OPTIONS', 'stack.sync was called with invalid options (remote, auth, classes, internalDocs).'),
  syncLogin: createError('DS_SYNC_LOGIN', 'Logging in to the remote node failed (wrong credentials, or the node refused).'),
};

/** For `definePlugin({ errors })`. */
export const syncErrorList = Object.values(SYNC_ERRORS);
