import { createError } from '../../index.js';

/** The error codes of the jobs plugin (docs/errors.md). */
export const JOB_ERRORS = {
  jobInvalid: createError('DS_JOB_INVALID', 'The job model is invalid (schedule, platform, timeout, retries...).'),
  jobExists: createError('DS_JOB_EXISTS', 'A job with that name already exists.', { status: 409 }),
  jobNotFound: createError('DS_JOB_NOT_FOUND', 'No job with that name exists.', { status: 404 }),
  jobDisabled: createError('DS_JOB_DISABLED', 'The job is disabled.', { status: 409 }),
  jobTimeout: createError('DS_JOB_TIMEOUT', 'A job run took longer than its timeout.', { status: 500 }),
};

/** For `definePlugin({ errors })`. */
export const jobErrorList = Object.values(JOB_ERRORS);
