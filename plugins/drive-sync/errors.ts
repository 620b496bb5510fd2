import { createError } from '../../index.js';

/** The error codes of the drive-sync plugin (docs/errors.md). */
export const DRIVE_ERRORS = {
  options: createError('DS_DRIVE_OPTIONS', 'stack.driveSync or webdavAdapter was given invalid options (adapter, url, auth).'),
  http: createError('DS_DRIVE_HTTP', 'The drive answered with an unexpected status, or kept answering 429/5xx after every retry.', { status: 502 }),
  conflict: createError('DS_DRIVE_CONFLICT', 'A drive file kept changing under this device (412 Precondition Failed) after every retry.', { status: 409 }),
  precondition: createError('DS_DRIVE_PRECONDITION', 'A conditional drive write (If-Match / If-None-Match) found the file changed: read it again and merge (adapters throw it; driveSync retries).', { status: 412 }),
};

/** For `definePlugin({ errors })`. */
export const driveErrorList = Object.values(DRIVE_ERRORS);
