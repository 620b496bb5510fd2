import { createError } from '../../index.js';

/** The error codes of the cloud-queue plugin (docs/errors.md). */
export const CLOUD_ERRORS = {
  options: createError('DS_CLOUD_OPTIONS', 'The cloud queue was given invalid options (url, apiKey / username and password, batchSize, intervals).'),
  auth: createError('DS_CLOUD_AUTH', 'The cloud endpoint or its IAM token service refused the credentials (API key, or user and password).', { status: 502 }),
  http: createError('DS_CLOUD_HTTP', 'The cloud endpoint could not be reached or answered an error; the batch stays queued and is retried.', { status: 502 }),
};

/** For `definePlugin({ errors })`. */
export const cloudErrorList = Object.values(CLOUD_ERRORS);
