import { createError } from '../index.js';
import { registerErrors } from '../kit/index.js';

/**
 * The error codes of the server node (docs/errors.md): every answer that is not a success
 * carries one, route-level refusals (401, 404, a malformed body) as much as engine refusals.
 * The status here is the status the node answers with.
 */
export const SERVER_ERRORS = {
  serverConfigInvalid: createError('DS_SERVER_CONFIG_INVALID', 'A server setting (environment variable) has an invalid value.', { status: 500 }),
  serverKey: createError('DS_SERVER_KEY', 'The JWT signing key cannot be loaded (wrong or missing passphrase, malformed PEM).', { status: 500 }),
  authzInternal: createError('DS_AUTHZ_INTERNAL', 'Documents of engine-internal classes (~…) are written by the engine only, never by a peer.', { status: 403 }),
  authzMetaClass: createError('DS_AUTHZ_META_CLASS', 'The meta-classes class, domain and ~self cannot be changed over HTTP.', { status: 403 }),
  authzSchema: createError('DS_AUTHZ_SCHEMA', 'Class and domain documents (the schema) are changed only by an admin.', { status: 403 }),
  authzAdmin: createError('DS_AUTHZ_ADMIN', 'Only an admin may do this (user management, reset, clear).', { status: 403 }),
  authzPlaintext: createError('DS_AUTHZ_PLAINTEXT', 'A peer sent plaintext in an encrypted attribute; only a sealed payload is accepted.', { status: 403 }),
  authzKeyring: createError('DS_AUTHZ_KEYRING', "A keyring document is written and read by its owner's devices only (admins included), over replication.", { status: 403 }),
  authzSession: createError('DS_AUTHZ_SESSION', "Only the owner of a session (or an admin) may revoke it.", { status: 403 }),
  authRequired: createError('DS_AUTH_REQUIRED', 'The route needs a valid session: a Bearer token, the jwtToken cookie or Basic credentials.', { status: 401 }),
  authCredentials: createError('DS_AUTH_CREDENTIALS', 'The username or the password is wrong (or the user is disabled).', { status: 401 }),
  authRateLimited: createError('DS_AUTH_RATE_LIMITED', 'Too many failed logins from this address or for this user; retry later.', { status: 429 }),
  requestInvalid: createError('DS_REQUEST_INVALID', 'The request is malformed: its body, parameters or query string.', { status: 400 }),
  idempotencyKeyReused: createError('DS_IDEMPOTENCY_KEY_REUSED', 'An Idempotency-Key already names another batch of documents; a retry must send the same documents.', { status: 422 }),
  requestTooLarge: createError('DS_REQUEST_TOO_LARGE', 'The request body is larger than BODY_LIMIT.', { status: 413 }),
  routeNotFound: createError('DS_ROUTE_NOT_FOUND', 'No route of the node answers this method and path.', { status: 404 }),
  methodNotAllowed: createError('DS_ROUTE_METHOD', 'The route exists but not for this method (the replication protocol served is a subset).', { status: 405 }),
  userNotFound: createError('DS_USER_NOT_FOUND', 'No user with that username.', { status: 404 }),
  sessionNotFound: createError('DS_SESSION_NOT_FOUND', 'No active session with that id.', { status: 404 }),
  databaseNotFound: createError('DS_DATABASE_NOT_FOUND', 'The node hosts no database (connection) by that name.', { status: 404 }),
  databaseExists: createError('DS_DATABASE_EXISTS', 'The database exists already (what CouchDB answers to creating it).', { status: 412 }),
  documentMissing: createError('DS_REPLICATION_MISSING', 'The document (or revision) is not on the node, or not readable by the caller.', { status: 404 }),
  replicationForbidden: createError('DS_REPLICATION_FORBIDDEN', 'Not served over replication: design documents, deleting a hosted database.', { status: 403 }),
  nodeNotReady: createError('DS_NODE_NOT_READY', 'The node is starting (or resetting); retry in a moment.', { status: 503 }),
  nodeInternal: createError('DS_NODE_INTERNAL', 'The node failed to answer; the cause is logged on the node, never sent.', { status: 500 }),
  quotaExceeded: createError('DS_QUOTA_EXCEEDED', 'The write would take its user or its tenant past a quota (documents or bytes); the reason gives the current usage.', { status: 403 }),
  quotaInvalid: createError('DS_QUOTA_INVALID', 'A quota sent to the admin route is malformed (scope, subject, className, maxDocs, maxBytes).'),
  secretInvalid: createError('DS_SECRET_INVALID', 'A secret name or value is malformed (names: letters, digits, "_", ".", ":", "-"; values: text up to 16 KB).', { status: 400 }),
  secretNotFound: createError('DS_SECRET_NOT_FOUND', 'No secret by that name.', { status: 404 }),
  secretUnreadable: createError('DS_SECRET_UNREADABLE', "A stored secret does not open with this node's key (the JWT key was replaced); set it again.", { status: 500 }),
  webhookInvalid: createError('DS_WEBHOOK_INVALID', 'A webhook endpoint is malformed: its url, classes, operations, secret or headers.', { status: 400 }),
  webhookNotFound: createError('DS_WEBHOOK_NOT_FOUND', 'No webhook endpoint (or delivery) with that id.', { status: 404 }),
  resetUnavailable: createError('DS_NODE_RESET_UNAVAILABLE', 'This node cannot reset its database (no reset wired).', { status: 501 }),
  tenantInvalid: createError('DS_TENANT_INVALID', 'A tenant name is malformed: 1 to 64 lowercase letters, digits, "_" or "-".', { status: 400 }),
  tenantNotFound: createError('DS_TENANT_NOT_FOUND', 'No class of the node belongs to a tenant by that name, so the node hosts no such tenant.', { status: 404 }),
  tenantClass: createError('DS_TENANT_CLASS', "A tenant's endpoint refused a document of a class that does not belong to the tenant.", { status: 403 }),
  backupInvalid: createError('DS_BACKUP_INVALID', 'The file is not a docstack backup, or a line of it is malformed (docs/cli.md#backup-and-restore).', { status: 400 }),
  restoreTargetExists: createError('DS_RESTORE_TARGET_EXISTS', 'A restore writes into a new store only: the target store already exists.', { status: 409 }),
  nodeUnreachable: createError('DS_NODE_UNREACHABLE', 'The command line could not reach the node at its URL (not running, another port: --url).', { status: 503 }),
  authzTenant: createError('DS_AUTHZ_TENANT', 'The user is not a member of this tenant (an admin reaches every tenant).', { status: 403 }),
};

registerErrors(Object.values(SERVER_ERRORS), 'server');
