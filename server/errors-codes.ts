import { createError, registerErrors } from '../kernel/errors.js';

/** The error codes of the server node (docs/errors.md). */
export const SERVER_ERRORS = {
  serverConfigInvalid: createError('DS_SERVER_CONFIG_INVALID', 'A server setting (environment variable) has an invalid value.', { status: 500 }),
  serverKey: createError('DS_SERVER_KEY', 'The JWT signing key cannot be loaded (wrong or missing passphrase, malformed PEM).', { status: 500 }),
  authzInternal: createError('DS_AUTHZ_INTERNAL', 'Documents of engine-internal classes (~…) are written by the engine only, never by a peer.', { status: 403 }),
  authzMetaClass: createError('DS_AUTHZ_META_CLASS', 'The meta-classes class, domain and ~self cannot be changed over HTTP.', { status: 403 }),
  authzSchema: createError('DS_AUTHZ_SCHEMA', 'Class and domain documents (the schema) are changed only by an admin.', { status: 403 }),
  authzAdmin: createError('DS_AUTHZ_ADMIN', 'Only an admin may do this (user management, reset, clear).', { status: 403 }),
  authzPlaintext: createError('DS_AUTHZ_PLAINTEXT', 'A peer sent plaintext in an encrypted attribute; only a sealed payload is accepted.', { status: 403 }),
};

registerErrors(Object.values(SERVER_ERRORS), 'server');
