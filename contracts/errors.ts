/**
 * Every refusal docstack makes is a DocstackError carrying a stable code, made by a factory
 * (`throw KERNEL_ERRORS.docNotFound('…')`). The kernel's factories are at the end; each plugin defines its codes with `createError` in its own errors.ts and lists them
 * in `definePlugin({ errors })`, so a third-party plugin adds codes without editing the kernel.
 * Codes are stable API: callers branch on them, so never rename one — add a new code instead.
 * docs/errors.md documents each code; test/kernel/errors.test.ts keeps the two in step.
 */

export interface ErrorSpec {
  /** What the code means, in one sentence (docs/errors.md says the same). */
  readonly description: string;
  /** The HTTP status a server answers with when this refusal reaches a route. */
  readonly status: number;
}

/** A kernel code (KERNEL_ERRORS below); plugins' codes are strings defined with createError. */
export type KernelErrorCode = (typeof KERNEL_ERRORS)[keyof typeof KERNEL_ERRORS]['code'];
/** Any registered code: the kernel's are suggested by editors, plugins' are plain strings. */
export type ErrorCode = KernelErrorCode | (string & {});

const CODE_PATTERN = /^[A-Z][A-Z0-9]*_[A-Z0-9]+_[A-Z0-9_]+$/;

interface RegisteredCode extends ErrorSpec {
  owner: string;
}

/** Every code known in this process: the kernel's (end of this file), then each plugin's as a stack is set up with it. */
const registry = new Map<string, RegisteredCode>();

/** Every registered code with its description, status and owner (the kernel or a plugin). */
export function registeredErrors(): ReadonlyMap<string, Readonly<RegisteredCode>> {
  return registry;
}

export interface DocstackErrorOptions {
  /** Attribute path the refusal is about, e.g. `tags[2]` or `owner`. */
  path?: string;
  /** Machine-readable extra facts (never secrets). */
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Overrides the code's registered HTTP status for this one error. */
  status?: number;
}

export class DocstackError extends Error {
  override readonly name = 'DocstackError';
  readonly code: ErrorCode;
  readonly path?: string;
  readonly details?: Record<string, unknown>;
  /** The HTTP status for this refusal: the code's registered status (400 for an unregistered code). */
  readonly status: number;

  constructor(code: ErrorCode, message: string, options: DocstackErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? registry.get(code)?.status ?? 400;
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

/** Makes DocstackErrors of one code: `throw NotFound('There is no job "x".', { path: 'name' })`. */
export interface ErrorFactory<C extends string = string> extends ErrorSpec {
  (message?: string, options?: DocstackErrorOptions): DocstackError & { readonly code: C };
  readonly code: C;
}

/**
 * Defines an error code: a plugin lists the factories in `definePlugin({ errors })` and throws
 * with them. The code is `PREFIX_AREA_WHAT` in capitals (e.g. `ACME_AUDIT_FULL`); the status is
 * what an HTTP route answers when the error reaches it (default 400). Defining registers
 * nothing (a module of factories has no import-time effect, so a bundle drops the codes of a
 * plugin it does not hold): the plugin's codes are registered when a stack is set up with it.
 */
export function createError<const C extends string>(code: C, description: string, options: { status?: number } = {}): ErrorFactory<C> {
  if (!CODE_PATTERN.test(code)) {
    throw new DocstackError('DS_PLUGIN_INVALID', `The error code ${JSON.stringify(code)} is not PREFIX_AREA_WHAT in capitals.`, { details: { code } });
  }
  const status = options.status ?? 400;
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new DocstackError('DS_PLUGIN_INVALID', `The status of ${code} must be an HTTP error status (got ${String(status)}).`, { details: { code } });
  }
  refuseOtherMeaning(code, description, status);
  // the factory's errors carry its status themselves: right before (and without) registration
  const factory = ((message?: string, opts: DocstackErrorOptions = {}) => new DocstackError(code, message ?? description, { status, ...opts })) as ErrorFactory<C>;
  return Object.assign(factory, { code, description, status }) as ErrorFactory<C>;
}

function refuseOtherMeaning(code: string, description: string, status: number): void {
  const known = registry.get(code);
  if (known && (known.description !== description || known.status !== status)) {
    throw new DocstackError('DS_PLUGIN_INVALID', `The error code ${code} is already defined by ${known.owner} with another meaning.`, { details: { code, owner: known.owner } });
  }
}

/** Registers the codes an owner defines (the kernel does it for each plugin of a stack, at set-up). */
export function registerErrors(factories: readonly ErrorFactory[], owner: string): void {
  for (const factory of factories) {
    const known = registry.get(factory.code);
    if (known && known.owner !== owner) {
      throw new DocstackError('DS_PLUGIN_INVALID', `The error code ${factory.code} belongs to ${known.owner}; ${owner} cannot define it too.`, {
        details: { code: factory.code, owner: known.owner },
      });
    }
    refuseOtherMeaning(factory.code, factory.description, factory.status);
    registry.set(factory.code, { description: factory.description, status: factory.status, owner });
  }
}

/**
 * The kernel's codes, as factories like any plugin's: `throw KERNEL_ERRORS.classNotFound('…')`.
 * Defined last: createError reads the registry and the code pattern above.
 */
export const KERNEL_ERRORS = {
  // plugins and the registry
  pluginInvalid: createError('DS_PLUGIN_INVALID', 'A plugin is not a valid plugin object (name and setup are required), or defines an error code twice.', { status: 500 }),
  pluginDuplicate: createError('DS_PLUGIN_DUPLICATE', 'Two plugins with the same name were given to one stack.', { status: 500 }),
  notInBuild: createError('DS_NOT_IN_BUILD', "This build of docstack leaves the feature out (the slim browser bundle has no replication ingest): use the full bundle (docstack/browser).", { status: 501 }),
  capabilityMissing: createError('DS_CAPABILITY_MISSING', 'The class uses an attribute type or config key (encrypted, reference…) no loaded plugin defines: it is read-only on this stack.', { status: 409 }),
  pluginMissingRequirement: createError('DS_PLUGIN_MISSING_REQUIREMENT', 'A plugin requires (or uses) another plugin that is not in the list or not declared.', { status: 500 }),

  // handler registries (kernel/handler-registry.ts): trigger handlers, job handlers
  handlerInvalid: createError('DS_HANDLER_INVALID', 'A handler registration is invalid: the name breaks the handler name rule, or the handler is not a function.', { status: 500 }),
  handlerDuplicate: createError('DS_HANDLER_DUPLICATE', 'A handler of that kind and name is already registered on this stack.', { status: 500 }),
  handlerUnknown: createError('DS_HANDLER_UNKNOWN', 'A trigger or a job names a handler (or a trigger a job) that this stack does not have.'),

  // stack life cycle and storage
  stackOptionsInvalid: createError('DS_STACK_OPTIONS_INVALID', 'createStack was called with invalid options.', { status: 500 }),
  stackClosed: createError('DS_STACK_CLOSED', 'The stack is closed (or not yet open); open a new one.', { status: 503 }),
  stackPatchCount: createError('DS_STACK_PATCH_COUNT', 'PATCH_COUNT does not match the number of system patches applied.', { status: 500 }),
  storageAdapterUnknown: createError('DS_STORAGE_ADAPTER_UNKNOWN', 'The storage adapter is not one of indexeddb, leveldb or memory.', { status: 500 }),
  storageLocked: createError('DS_STORAGE_LOCKED', 'The store is in use by another process (its leveldb lock is held): one process opens a store at a time.', { status: 503 }),
  storageBypass: createError('DS_STORAGE_BYPASS', 'storage.put was given a document of a user class: those are written through the pipeline (createDoc, updateDoc, ingest).', { status: 500 }),
  storageUnavailable: createError('DS_STORAGE_UNAVAILABLE', 'The storage cannot be opened here: no IndexedDB (a private window, a sandboxed frame, not a browser), IndexedDB refused to open, or the adapter is not in this build.', { status: 503 }),
  storageQuota: createError('DS_STORAGE_QUOTA', "The browser's storage quota for the site is full: the write was not stored.", { status: 507 }),

  // classes
  classNotFound: createError('DS_CLASS_NOT_FOUND', 'No class with that name exists (or it is inactive).', { status: 404 }),
  classExists: createError('DS_CLASS_EXISTS', 'A class with that name already exists.', { status: 409 }),
  classInvalid: createError('DS_CLASS_INVALID', 'The class model is invalid (name, meta-class, options).'),
  classMissing: createError('DS_CLASS_MISSING', 'A document was written without a ~class.'),
  classNotHere: createError('DS_CLASS_NOT_HERE', "A peer's document of a ~ system class this stack does not have: the plugin owning it is not loaded here (refused, not held: its class never arrives by replication).", { status: 409 }),

  // attribute models
  attributeInvalid: createError('DS_ATTRIBUTE_INVALID', 'The attribute model is invalid.'),
  attributeNameInvalid: createError('DS_ATTRIBUTE_NAME_INVALID', 'The attribute name is not allowed.'),
  attributeExists: createError('DS_ATTRIBUTE_EXISTS', 'The class already has an attribute with that name.', { status: 409 }),
  attributeTypeUnknown: createError('DS_ATTRIBUTE_TYPE_UNKNOWN', 'The attribute type is not one of the types the loaded plugins define.'),
  attributeConfigInvalid: createError('DS_ATTRIBUTE_CONFIG_INVALID', 'A config key does not apply to the attribute type, or has a bad value.'),
  attributeEnumValues: createError('DS_ATTRIBUTE_ENUM_VALUES', 'An enum attribute needs a non-empty list of distinct values.'),
  attributeTargetClass: createError('DS_ATTRIBUTE_TARGET_CLASS', 'A foreign_key attribute needs a targetClass that exists.'),
  attributePrimaryKey: createError('DS_ATTRIBUTE_PRIMARY_KEY', 'The attribute cannot be (or become) part of the primary key.'),
  attributeDefaultInvalid: createError('DS_ATTRIBUTE_DEFAULT_INVALID', 'The defaultValue does not satisfy the attribute model.'),
  attributeMandatoryNeedsDefault: createError('DS_ATTRIBUTE_MANDATORY_NEEDS_DEFAULT', 'A mandatory attribute added to a class that has documents needs a defaultValue.'),

  // documents
  docInvalid: createError('DS_DOC_INVALID', 'The document is not a plain JSON object.'),
  docIdInvalid: createError('DS_DOC_ID_INVALID', 'The document id is not valid for its class.'),
  docIdReserved: createError('DS_DOC_ID_RESERVED', 'The id is a system id.'),
  docIdOtherClass: createError('DS_DOC_ID_OTHER_CLASS', 'The id is in another class\'s range.'),
  docExists: createError('DS_DOC_EXISTS', 'A document with that id already exists.', { status: 409 }),
  docNotFound: createError('DS_DOC_NOT_FOUND', 'No active document with that id exists.', { status: 404 }),

  docConflict: createError('DS_DOC_CONFLICT', 'The document was changed by another writer; read it again and retry.', { status: 409 }),
  conflictSealed: createError('DS_CONFLICT_SEALED', 'The conflict involves encrypted values this stack cannot open: a device holding the scope\'s key resolves it.', { status: 409 }),
  conflictPolicyFailed: createError('DS_CONFLICT_POLICY_FAILED', 'A conflict handler failed with an error that is not a docstack error; the conflict stays listed.', { status: 500 }),
  conflictNone: createError('DS_CONFLICT_NONE', 'The document has no conflicting revision to resolve: resolved already, or never in conflict.', { status: 409 }),
  docProtectedField: createError('DS_DOC_PROTECTED_FIELD', 'A system field (_id, _rev, ~class, timestamps) cannot be changed.'),
  uniqueViolation: createError('DS_UNIQUE_VIOLATION', 'Another document already has this primary-key combination.', { status: 409 }),
  primaryKeyImmutable: createError('DS_PRIMARY_KEY_IMMUTABLE', 'A primary-key attribute cannot be changed by an update: create the document with the new key and delete the old one.'),
  dependencyRefused: createError('DS_DEPENDENCY_REFUSED', "A peer's document waits for a class or document the same ingest batch refused at admission (authorization, shape, quota): it is refused too rather than held for what will not come.", { status: 409 }),
  queryInvalid: createError('DS_QUERY_INVALID', 'The selector or the query options are invalid.'),
  queryTooCostly: createError('DS_QUERY_TOO_COSTLY', 'The query ran past its deadline (a remote query is stopped between two pages of its scan): narrow it.', { status: 422 }),
};
registerErrors(Object.values(KERNEL_ERRORS), 'kernel');

/** The kernel's codes with their description and status, by code (docs, the server's rendering). */
export const ERROR_CODES = Object.fromEntries(
  Object.values(KERNEL_ERRORS).map((factory) => [factory.code, { description: factory.description, status: factory.status }]),
) as Readonly<Record<KernelErrorCode, ErrorSpec>>;
