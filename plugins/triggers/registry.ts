import type { AwilixContainer } from 'awilix';
import { DocstackError } from '../../kernel/errors.js';
import type { WriteOp, WriteOrigin } from '../../kernel/hooks.js';
import type { ClassModel, Doc, NewDoc } from '../../kernel/model/types.js';
import type { ClientStack, WriteOptions } from '../../kernel/stack.js';
import type { TriggerModel } from './model.js';

/** Container key of the per-stack handler registry (a TriggerHandlerRegistry). */
export const TRIGGER_HANDLERS = 'triggerHandlers';

/** Options a handler may give its writes; the depth is always the trigger's depth + 1. */
export type TriggerWriteOptions = Omit<WriteOptions, 'depth'>;

/**
 * Writes made by a trigger: the ordinary pipeline (validation, other triggers) with the depth
 * counted, so a trigger that keeps starting itself ends at the depth limit instead of forever.
 */
export interface TriggerWriteApi {
  createDoc(doc: NewDoc, options?: TriggerWriteOptions & { id?: string }): Promise<Doc>;
  updateDoc(id: string, changes: Record<string, unknown>, options?: TriggerWriteOptions): Promise<Doc>;
  deleteDocument(id: string, options?: TriggerWriteOptions): Promise<Doc>;
}

export interface TriggerContext {
  /** the stored trigger model (a copy: changing it changes nothing) */
  trigger: TriggerModel;
  /** `trigger.params` */
  params: Record<string, unknown>;
  op: WriteOp;
  /** the stored document before this write (update and delete) */
  previous?: Doc;
  stack: ClientStack;
  classModel: ClassModel;
  origin: WriteOrigin;
  /** 0 for a caller's write, +1 per trigger write that led to this one */
  depth: number;
  /** true while the pipeline only checks (nothing will be stored): skip side effects then */
  dryRun: boolean;
  write: TriggerWriteApi;
}

/**
 * Code a trigger names. A before-handler returns the changed document (or changes its copy in
 * place and returns nothing) or throws to refuse; an after-handler's return value is ignored.
 */
export type TriggerHandler = (doc: Doc, context: TriggerContext) => Promise<Doc | void> | Doc | void;

const HANDLER_NAME = /^[A-Za-z][A-Za-z0-9_.:/-]{0,127}$/;

/** The handlers of one stack, by name. One per stack (in its container), never shared. */
export class TriggerHandlerRegistry {
  private readonly handlers = new Map<string, TriggerHandler>();

  register(name: string, handler: TriggerHandler): void {
    if (typeof name !== 'string' || !HANDLER_NAME.test(name)) {
      throw new DocstackError(
        'DS_PLUGIN_INVALID',
        `A trigger handler name starts with a letter and holds letters, digits and "_ . : / -" (got ${JSON.stringify(name)}).`,
        { details: { handler: name } },
      );
    }
    if (typeof handler !== 'function') {
      throw new DocstackError('DS_PLUGIN_INVALID', `The trigger handler "${name}" must be a function.`, { details: { handler: name } });
    }
    // two plugins claiming one name would make stored triggers run whichever registered last
    if (this.handlers.has(name)) {
      throw new DocstackError('DS_PLUGIN_DUPLICATE', `A trigger handler named "${name}" is already registered on this stack.`, {
        details: { handler: name },
      });
    }
    this.handlers.set(name, handler);
  }

  get(name: string | undefined): TriggerHandler | undefined {
    return name === undefined ? undefined : this.handlers.get(name);
  }

  has(name: string): boolean {
    return this.handlers.has(name);
  }

  names(): string[] {
    return [...this.handlers.keys()].sort();
  }
}

/** The registry of a stack (or of a plugin's kernel during setup); DS_TRIGGER_UNAVAILABLE without the plugin. */
export function triggerHandlers(owner: { container: AwilixContainer }): TriggerHandlerRegistry {
  if (!owner.container.hasRegistration(TRIGGER_HANDLERS)) {
    throw new DocstackError(
      'DS_TRIGGER_UNAVAILABLE',
      'Trigger handlers need the triggers plugin: list it in the stack plugins (and `requires: ["triggers"]` in yours).',
    );
  }
  return owner.container.resolve<TriggerHandlerRegistry>(TRIGGER_HANDLERS);
}

/**
 * Registers code that stored triggers can name. A third-party trigger plugin calls it in its
 * setup (`requires: ['triggers']`); an application may call it with the stack after opening.
 */
export function registerTriggerHandler(owner: { container: AwilixContainer }, name: string, handler: TriggerHandler): void {
  triggerHandlers(owner).register(name, handler);
}
