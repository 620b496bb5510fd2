import type { AwilixContainer } from 'awilix';
import { DocstackError, KERNEL_ERRORS } from '../contracts/errors.js';

/**
 * Named code that stored models point at: trigger handlers, job handlers. A stored trigger or
 * job only names its handler; the code is registered per stack by a plugin in its setup, so
 * nothing stored is ever executed as code. Every kind of handler goes through this one registry
 * type, so they share one name rule and one set of codes:
 *
 * - `DS_HANDLER_INVALID` — the name breaks the rule below, or the handler is not a function;
 * - `DS_HANDLER_DUPLICATE` — the name is already registered for this kind on this stack;
 * - `DS_HANDLER_UNKNOWN` — a model names a handler nobody registered on this stack.
 */

/** Any function a plugin registers under a name (every function type is assignable to it). */
export type AnyHandler = (...args: never[]) => unknown;

/**
 * The handler name rule: a letter, then letters, digits and `_ . : -`, at most 100 characters
 * (`retention.sweep`, `slugs.fill`). Prefix names with your plugin's name.
 */
export const HANDLER_NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;

/** What a refusal for an unknown handler may add: the field it is about, facts for `details`. */
export interface HandlerLookup {
  /** `path` of the error (the field of the model that names the handler) */
  path?: string;
  /** merged into the error's `details` */
  details?: Record<string, unknown>;
  /** who names the handler, put before the message, e.g. `The trigger "slug"` */
  subject?: string;
}

interface Entry<H, O> {
  handler: H;
  options: O;
}

/** `DS_HANDLER_UNKNOWN` for a name that no plugin registered as a handler of this kind. */
export function unknownHandler(kind: string, name: unknown, registered: readonly string[], lookup: HandlerLookup = {}): DocstackError {
  const known = registered.length > 0 ? `registered: ${registered.join(', ')}` : `no ${kind} is registered`;
  const what = `no plugin registered a ${kind} named ${JSON.stringify(name)} on this stack (${known})`;
  const message = lookup.subject ? `${lookup.subject}: ${what}.` : `${what.charAt(0).toUpperCase()}${what.slice(1)}.`;
  return KERNEL_ERRORS.handlerUnknown(message, {
    ...(lookup.path !== undefined ? { path: lookup.path } : {}),
    details: { kind, handler: name, registered: [...registered], ...lookup.details },
  });
}

/**
 * The handlers of one kind on one stack, by name: one per stack (in its container), never a
 * module-level map. `O` is what a kind stores beside each handler (a job handler's
 * `checkParams`, say); kinds without options leave it out.
 */
export class HandlerRegistry<H extends AnyHandler, O extends object = Record<never, never>> {
  private readonly entries = new Map<string, Entry<H, O>>();

  /** @param kind what the handlers are, for messages: `trigger handler`, `job handler` */
  constructor(readonly kind: string) {}

  /** Adds a handler; DS_HANDLER_INVALID for a bad name or a non-function, DS_HANDLER_DUPLICATE for a taken name. */
  register(name: string, handler: H, options?: O): void {
    if (typeof name !== 'string' || !HANDLER_NAME.test(name)) {
      throw KERNEL_ERRORS.handlerInvalid(
        `A ${this.kind} name starts with a letter and holds letters, digits and "_ . : -", at most 100 (got ${JSON.stringify(name)}).`,
        { path: 'name', details: { kind: this.kind, handler: name } },
      );
    }
    if (typeof handler !== 'function') {
      throw KERNEL_ERRORS.handlerInvalid(`The ${this.kind} "${name}" must be a function.`, {
        path: 'handler',
        details: { kind: this.kind, handler: name },
      });
    }
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw KERNEL_ERRORS.handlerInvalid(`The options of the ${this.kind} "${name}" must be an object.`, {
        path: 'options',
        details: { kind: this.kind, handler: name },
      });
    }
    // two plugins claiming one name would make stored models run whichever registered last
    if (this.entries.has(name)) {
      throw KERNEL_ERRORS.handlerDuplicate(`A ${this.kind} named "${name}" is already registered on this stack; two plugins cannot both register it.`, {
        path: 'name',
        details: { kind: this.kind, handler: name },
      });
    }
    this.entries.set(name, { handler, options: { ...(options ?? {}) } as O });
  }

  /** Removes a handler; false when none of that name was registered. */
  unregister(name: string): boolean {
    return this.entries.delete(name);
  }

  /** The handler, or undefined (also for `undefined`: a model that names none). */
  get(name: string | undefined): H | undefined {
    return name === undefined ? undefined : this.entries.get(name)?.handler;
  }

  /** The options the handler was registered with, or undefined when there is no such handler. */
  options(name: string | undefined): O | undefined {
    return name === undefined ? undefined : this.entries.get(name)?.options;
  }

  /** The handler, or DS_HANDLER_UNKNOWN (with `lookup.path` as its path). */
  require(name: string | undefined, lookup: HandlerLookup = {}): H {
    const handler = this.get(name);
    if (handler === undefined) throw unknownHandler(this.kind, name, this.names(), lookup);
    return handler;
  }

  has(name: string | undefined): boolean {
    return name !== undefined && this.entries.has(name);
  }

  /** Registered names, sorted. */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }
}

/**
 * The registry a plugin keeps in the container under `key`, for a function such as
 * `registerJobHandler(kernel, …)`. Without it (the plugin is not loaded, or not set up before
 * the caller's plugin) DS_PLUGIN_MISSING_REQUIREMENT.
 */
export function handlerRegistryOf<R extends HandlerRegistry<AnyHandler, object>>(
  owner: { container: AwilixContainer },
  key: string,
  kind: string,
  plugin: string,
): R {
  if (!owner.container.hasRegistration(key)) {
    throw KERNEL_ERRORS.pluginMissingRequirement(
      `Registering a ${kind} needs the ${plugin} plugin: list it in the stack plugins (and \`requires: ['${plugin}']\` in yours).`,
      { details: { kind, requires: plugin } },
    );
  }
  return owner.container.resolve<R>(key);
}
