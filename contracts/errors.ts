/**
 * Every refusal docstack makes is a DocstackError carrying a stable code. The kernel's own codes
 * are below; each plugin defines its codes with `createError` in its own errors.ts and lists them
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

const kernelCode = (description: string, status = 400): ErrorSpec => ({ description, status });

/** The kernel's codes: plugins, handler registries, stack, storage, classes, attributes, documents. */
export const ERROR_CODES = {
  // plugins and the registry
  DS_PLUGIN_INVALID: kernelCode('A plugin is not a valid plugin object (name and setup are required), or defines an error code twice.', 500),
  DS_PLUGIN_DUPLICATE: kernelCode('Two plugins with the same name were given to one stack.', 500),
  DS_CAPABILITY_MISSING: kernelCode('The class uses an attribute type or config key (encrypted, reference…) no loaded plugin defines: it is read-only on this stack.', 409),
  DS_PLUGIN_MISSING_REQUIREMENT: kernelCode('A plugin requires (or uses) another plugin that is not in the list or not declared.', 500),

  // handler registries (kernel/handler-registry.ts): trigger handlers, job handlers
  DS_HANDLER_INVALID: kernelCode('A handler registration is invalid: the name breaks the handler name rule, or the handler is not a function.', 500),
  DS_HANDLER_DUPLICATE: kernelCode('A handler of that kind and name is already registered on this stack.', 500),
  DS_HANDLER_UNKNOWN: kernelCode('A trigger or a job names a handler (or a trigger a job) that this stack does not have.'),

  // stack life cycle and storage
  DS_STACK_OPTIONS_INVALID: kernelCode('createStack was called with invalid options.', 500),
  DS_STACK_CLOSED: kernelCode('The stack is closed (or not yet open); open a new one.', 503),
  DS_STACK_PATCH_COUNT: kernelCode('PATCH_COUNT does not match the number of system patches applied.', 500),
  DS_STORAGE_ADAPTER_UNKNOWN: kernelCode('The storage adapter is not one of indexeddb, leveldb or memory.', 500),
  DS_STORAGE_LOCKED: kernelCode('The store is in use by another process (its leveldb lock is held): one process opens a store at a time.', 503),
  DS_STORAGE_BYPASS: kernelCode('storage.put was given a document of a user class: those are written through the pipeline (createDoc, updateDoc, ingest).', 500),
  DS_STORAGE_UNAVAILABLE: kernelCode('The storage cannot be opened here: no IndexedDB (a private window, a sandboxed frame, not a browser), IndexedDB refused to open, or the adapter is not in this build.', 503),
  DS_STORAGE_QUOTA: kernelCode("The browser's storage quota for the site is full: the write was not stored.", 507),

  // classes
  DS_CLASS_NOT_FOUND: kernelCode('No class with that name exists (or it is inactive).', 404),
  DS_CLASS_EXISTS: kernelCode('A class with that name already exists.', 409),
  DS_CLASS_INVALID: kernelCode('The class model is invalid (name, meta-class, options).'),
  DS_CLASS_MISSING: kernelCode('A document was written without a ~class.'),
  DS_CLASS_NOT_HERE: kernelCode("A peer's document of a ~ system class this stack does not have: the plugin owning it is not loaded here (refused, not held: its class never arrives by replication).", 409),

  // attribute models
  DS_ATTRIBUTE_INVALID: kernelCode('The attribute model is invalid.'),
  DS_ATTRIBUTE_NAME_INVALID: kernelCode('The attribute name is not allowed.'),
  DS_ATTRIBUTE_EXISTS: kernelCode('The class already has an attribute with that name.', 409),
  DS_ATTRIBUTE_TYPE_UNKNOWN: kernelCode('The attribute type is not one of the types the loaded plugins define.'),
  DS_ATTRIBUTE_CONFIG_INVALID: kernelCode('A config key does not apply to the attribute type, or has a bad value.'),
  DS_ATTRIBUTE_ENUM_VALUES: kernelCode('An enum attribute needs a non-empty list of distinct values.'),
  DS_ATTRIBUTE_TARGET_CLASS: kernelCode('A foreign_key attribute needs a targetClass that exists.'),
  DS_ATTRIBUTE_PRIMARY_KEY: kernelCode('The attribute cannot be (or become) part of the primary key.'),
  DS_ATTRIBUTE_DEFAULT_INVALID: kernelCode('The defaultValue does not satisfy the attribute model.'),
  DS_ATTRIBUTE_MANDATORY_NEEDS_DEFAULT: kernelCode('A mandatory attribute added to a class that has documents needs a defaultValue.'),

  // documents
  DS_DOC_INVALID: kernelCode('The document is not a plain JSON object.'),
  DS_DOC_ID_INVALID: kernelCode('The document id is not valid for its class.'),
  DS_DOC_EXISTS: kernelCode('A document with that id already exists.', 409),
  DS_DOC_NOT_FOUND: kernelCode('No active document with that id exists.', 404),
  DS_DOC_CONFLICT: kernelCode('The document was changed by another writer; read it again and retry.', 409),
  DS_DOC_PROTECTED_FIELD: kernelCode('A system field (_id, _rev, ~class, timestamps) cannot be changed.'),
  DS_UNIQUE_VIOLATION: kernelCode('Another document already has this primary-key combination.', 409),
  DS_DEPENDENCY_REFUSED: kernelCode("A peer's document waits for a class or document the same ingest batch refused at admission (authorization, shape, quota): it is refused too rather than held for what will not come.", 409),
  DS_QUERY_INVALID: kernelCode('The selector or the query options are invalid.'),
  DS_QUERY_TOO_COSTLY: kernelCode('The query ran past its deadline (a remote query is stopped between two pages of its scan): narrow it.', 422),
} as const satisfies Record<string, ErrorSpec>;

/** A kernel code; plugins' codes are strings registered with createError. */
export type KernelErrorCode = keyof typeof ERROR_CODES;
/** Any registered code: the kernel's are suggested by editors, plugins' are plain strings. */
export type ErrorCode = KernelErrorCode | (string & {});

const CODE_PATTERN = /^[A-Z][A-Z0-9]*_[A-Z0-9]+_[A-Z0-9_]+$/;

interface RegisteredCode extends ErrorSpec {
  owner: string;
}

/** Every code known in this process: the kernel's, then each plugin's as its module loads. */
const registry = new Map<string, RegisteredCode>(Object.entries(ERROR_CODES).map(([code, spec]) => [code, { ...spec, owner: 'kernel' }]));

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
 * Defines (and registers) an error code: a plugin lists the factories in `definePlugin({ errors })`
 * and throws with them. The code is `PREFIX_AREA_WHAT` in capitals (e.g. `ACME_AUDIT_FULL`); the
 * status is what an HTTP route answers when the error reaches it (default 400).
 */
export function createError<const C extends string>(code: C, description: string, options: { status?: number } = {}): ErrorFactory<C> {
  if (!CODE_PATTERN.test(code)) {
    throw new DocstackError('DS_PLUGIN_INVALID', `The error code ${JSON.stringify(code)} is not PREFIX_AREA_WHAT in capitals.`, { details: { code } });
  }
  const status = options.status ?? 400;
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new DocstackError('DS_PLUGIN_INVALID', `The status of ${code} must be an HTTP error status (got ${String(status)}).`, { details: { code } });
  }
  const known = registry.get(code);
  if (known && (known.description !== description || known.status !== status)) {
    throw new DocstackError('DS_PLUGIN_INVALID', `The error code ${code} is already defined by ${known.owner} with another meaning.`, { details: { code, owner: known.owner } });
  }
  if (!known) registry.set(code, { description, status, owner: 'unassigned' });
  const factory = ((message?: string, opts: DocstackErrorOptions = {}) => new DocstackError(code, message ?? description, opts)) as ErrorFactory<C>;
  return Object.assign(factory, { code, description, status }) as ErrorFactory<C>;
}

/** Records which plugin owns codes (definePlugin calls this with the plugin's `errors`). */
export function registerErrors(factories: readonly ErrorFactory[], owner: string): void {
  for (const factory of factories) {
    const known = registry.get(factory.code);
    if (known && known.owner !== 'unassigned' && known.owner !== owner) {
      throw new DocstackError('DS_PLUGIN_INVALID', `The error code ${factory.code} belongs to ${known.owner}; ${owner} cannot define it too.`, {
        details: { code: factory.code, owner: known.owner },
      });
    }
    registry.set(factory.code, { description: factory.description, status: factory.status, owner });
  }
}
