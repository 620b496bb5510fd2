/** The node renders every error with server/errors.ts; re-exported for the auth routes. */
export { errorWord, sendError, statusOf } from '../errors.js';
