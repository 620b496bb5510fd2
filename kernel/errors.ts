/**
 * Every refusal docstack makes is a DocstackError carrying one of these codes.
 * Codes are stable API: callers branch on them, so never rename one — add a new code instead.
 * docs/errors.md documents each code; test/kernel/errors.test.ts keeps the two in step.
 */
export const ERROR_CODES = {
  // plugins and the registry
  DS_PLUGIN_INVALID: 'A plugin is not a valid plugin object (name and setup are required).',
  DS_PLUGIN_DUPLICATE: 'Two plugins with the same name were given to one stack.',
  DS_PLUGIN_MISSING_REQUIREMENT: 'A plugin requires another plugin that is not in the list.',

  // stack life cycle and storage
  DS_STACK_OPTIONS_INVALID: 'createStack was called with invalid options.',
  DS_STACK_CLOSED: 'The stack is closed (or not yet open); open a new one.',
  DS_STACK_PATCH_COUNT: 'PATCH_COUNT does not match the number of system patches applied.',
  DS_STORAGE_ADAPTER_UNKNOWN: 'The storage adapter is not one of leveldb or memory.',

  // classes
  DS_CLASS_NOT_FOUND: 'No class with that name exists (or it is inactive).',
  DS_CLASS_EXISTS: 'A class with that name already exists.',
  DS_CLASS_INVALID: 'The class model is invalid (name, meta-class, options).',
  DS_CLASS_MISSING: 'A document was written without a ~class.',

  // attribute models
  DS_ATTRIBUTE_INVALID: 'The attribute model is invalid.',
  DS_ATTRIBUTE_NAME_INVALID: 'The attribute name is not allowed.',
  DS_ATTRIBUTE_EXISTS: 'The class already has an attribute with that name.',
  DS_ATTRIBUTE_TYPE_UNKNOWN: 'The attribute type is not one of the nine types.',
  DS_ATTRIBUTE_CONFIG_INVALID: 'A config key does not apply to the attribute type, or has a bad value.',
  DS_ATTRIBUTE_ENUM_VALUES: 'An enum attribute needs a non-empty list of distinct string values.',
  DS_ATTRIBUTE_TARGET_CLASS: 'A foreign_key attribute needs a targetClass that exists.',
  DS_ATTRIBUTE_REFERENCE_ARRAY: 'A reference attribute cannot be an array.',
  DS_ATTRIBUTE_REFERENCE_DOMAIN: 'A reference attribute needs a domain.',
  DS_ATTRIBUTE_ENCRYPTED_SIMPLE: 'A simple class cannot have encrypted attributes.',
  DS_ATTRIBUTE_ENCRYPTED_PRIMARY_KEY: 'A primary-key attribute cannot be encrypted.',
  DS_ATTRIBUTE_PRIMARY_KEY: 'The attribute cannot be (or become) part of the primary key.',
  DS_ATTRIBUTE_DEFAULT_INVALID: 'The defaultValue does not satisfy the attribute model.',
  DS_ATTRIBUTE_MANDATORY_NEEDS_DEFAULT:
    'A mandatory attribute added to a class that has documents needs a defaultValue.',

  // documents
  DS_DOC_INVALID: 'The document is not a plain JSON object.',
  DS_DOC_ID_INVALID: 'The document id is not valid for its class.',
  DS_DOC_EXISTS: 'A document with that id already exists.',
  DS_DOC_NOT_FOUND: 'No active document with that id exists.',
  DS_DOC_CONFLICT: 'The document was changed by another writer; read it again and retry.',
  DS_DOC_PROTECTED_FIELD: 'A system field (_id, _rev, ~class, timestamps) cannot be changed.',
  DS_UNIQUE_VIOLATION: 'Another document already has this primary-key combination.',
  DS_QUERY_INVALID: 'The selector or the query options are invalid.',
  DS_ENCRYPTION_UNAVAILABLE: 'An encrypted attribute reached storage unsealed; it is refused, never stored in clear.',

  // triggers (plugins/triggers)
  DS_TRIGGER_UNAVAILABLE: 'Triggers need the triggers plugin, which this stack does not load.',
  DS_TRIGGER_INVALID: 'The trigger model is invalid.',
  DS_TRIGGER_EXISTS: 'The class already has a trigger with that name.',
  DS_TRIGGER_NOT_FOUND: 'The class has no trigger with that name.',
  DS_TRIGGER_HANDLER_UNKNOWN: 'The trigger names a handler (or job) that no plugin registered.',
  DS_TRIGGER_REFUSED: 'A before-trigger refused the write.',
  DS_TRIGGER_DEPTH: 'Writes made by triggers nested deeper than the limit.',

  // jobs (plugins/jobs)
  DS_JOB_INVALID: 'The job model is invalid (schedule, platform, timeout, retries...).',
  DS_JOB_EXISTS: 'A job with that name already exists.',
  DS_JOB_NOT_FOUND: 'No job with that name exists.',
  DS_JOB_HANDLER_UNKNOWN: 'The job names a handler that no plugin registered.',
  DS_JOB_DISABLED: 'The job is disabled.',
  DS_JOB_TIMEOUT: 'A job run took longer than its timeout.',

  // domains and relations (plugins/domains)
  DS_DOMAIN_INVALID: 'The domain model is invalid (name, relation, classes).',
  DS_DOMAIN_EXISTS: 'A domain with that name already exists.',
  DS_DOMAIN_NOT_FOUND: 'No domain with that name exists.',
  DS_RELATION_INVALID: 'A relation end is missing, inactive or of the wrong class.',
  DS_RELATION_CARDINALITY: 'The relation would break the cardinality of its domain.',
  DS_RELATION_EXISTS: 'The two documents are already related in this domain.',
  DS_RELATION_NOT_FOUND: 'No active relation between the two documents in this domain.',
  DS_ATTRIBUTE_REFERENCE_PLACEMENT: 'A reference attribute is not allowed on this class for its domain.',

  // encryption (plugins/encryption)
  DS_ENCRYPTION_LOCKED: 'The key of the scope is not held (the stack is locked, or the scope was never shared with it).',
  DS_ENCRYPTION_PASSPHRASE: 'The passphrase does not open the keyring (or the key bundle).',
  DS_ENCRYPTION_SCOPE_UNKNOWN: 'The document names an access scope the keyring does not know.',
  DS_ENCRYPTION_SCOPE_EXISTS: 'The keyring already has a scope with that name.',
  DS_ENCRYPTION_INTEGRITY: 'A ciphertext failed to open: tampered, or moved from another document or attribute.',
  DS_ENCRYPTION_KEYRING: 'The keyring (or a key bundle) is malformed or in an unexpected state.',

  // server node (server/)
  DS_SERVER_CONFIG_INVALID: 'A server setting (environment variable) has an invalid value.',
  DS_SERVER_KEY: 'The JWT signing key cannot be loaded (wrong or missing passphrase, malformed PEM).',

  // authorization of writes that reach the node (server/authorization)
  DS_AUTHZ_INTERNAL: 'Documents of engine-internal classes (~…) are written by the engine only, never by a peer.',
  DS_AUTHZ_META_CLASS: 'The meta-classes class, domain and ~self cannot be changed over HTTP.',
  DS_AUTHZ_SCHEMA: 'Class and domain documents (the schema) are changed only by an admin.',
  DS_AUTHZ_ADMIN: 'Only an admin may do this (user management, reset, clear).',
  DS_AUTHZ_PLAINTEXT: 'A peer sent plaintext in an encrypted attribute; only a sealed payload is accepted.',

  // sync (plugins/sync)
  DS_SYNC_OPTIONS: 'stack.sync was called with invalid options (remote, auth).',
  DS_SYNC_LOGIN: 'Logging in to the remote node failed (wrong credentials, or the node refused).',

  // validation (plugins/validation)
  DS_VALIDATION_MANDATORY: 'A mandatory attribute is missing or null.',
  DS_VALIDATION_TYPE: 'A value does not have the attribute type.',
  DS_VALIDATION_INTEGER: 'An integer attribute was given a number that is not whole.',
  DS_VALIDATION_PRECISION: 'A decimal has more decimal places than the attribute precision.',
  DS_VALIDATION_MAX_LENGTH: 'A string is longer than the attribute maxLength.',
  DS_VALIDATION_RANGE: 'A number is below min or above max.',
  DS_VALIDATION_ENUM: 'A value is not one of the enum values.',
  DS_VALIDATION_DATE_FORMAT: 'A date does not match the attribute format (or is not a date).',
  DS_VALIDATION_ARRAY: 'An array attribute was not given an array (or a scalar one was).',
  DS_VALIDATION_FOREIGN_KEY: 'A foreign key names a document that is missing, inactive or of another class.',
  DS_VALIDATION_UNKNOWN_ATTRIBUTE: 'The document has attributes its class does not define.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface DocstackErrorOptions {
  /** Attribute path the refusal is about, e.g. `tags[2]` or `owner`. */
  path?: string;
  /** Machine-readable extra facts (never secrets). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class DocstackError extends Error {
  override readonly name = 'DocstackError';
  readonly code: ErrorCode;
  readonly path?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: DocstackErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.path !== undefined) this.path = options.path;
    if (options.details !== undefined) this.details = options.details;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, path: this.path, details: this.details };
  }
}

export function isDocstackError(err: unknown, code?: ErrorCode): err is DocstackError {
  return err instanceof DocstackError && (code === undefined || err.code === code);
}
