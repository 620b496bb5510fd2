import { createError } from '../../index.js';
import { registerErrors } from '../../kit/index.js';

/**
 * The codes of the node's query limits (docs/errors.md). DS_QUERY_TOO_COSTLY is the kernel's,
 * DS_SQL_BUDGET / DS_SQL_TOO_COMPLEX / DS_SQL_PATTERN the sql plugin's.
 */
export const QUERY_LIMIT_ERRORS = {
  busy: createError('DS_QUERY_BUSY', 'The user already has QUERY_CONCURRENCY queries (SQL, listings with q or sort) running on the node: retry when one is answered.', { status: 429 }),
};
registerErrors(Object.values(QUERY_LIMIT_ERRORS), 'server');
