import type { Response } from 'express';
import type { DocstackError } from '../../index.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { AUTH_ERRORS } from './errors-codes.js';

/**
 * The error for a refused login attempt (POST /login, POST /_session, Basic credentials, the
 * current password of a password change), with Retry-After set for the two that pass with time:
 * 429 (too many failures, or attempts in flight, for the username or the address) and 503 (the
 * node's password-hashing queue is full).
 */
export function attemptRefusal(res: Response, refusal: { status: 401 | 429 | 503; retryAfter?: number }, credentialsReason: string): DocstackError {
  if (refusal.status !== 401) res.set('Retry-After', String(refusal.retryAfter ?? 1));
  if (refusal.status === 429) return SERVER_ERRORS.authRateLimited('Too many failed logins; try again later.');
  if (refusal.status === 503) return AUTH_ERRORS.authBusy('The node is busy checking passwords; retry in a moment.');
  return SERVER_ERRORS.authCredentials(credentialsReason);
}
