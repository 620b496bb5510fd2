import type { AwilixContainer } from 'awilix';
import type { TriggerModel } from './types.js';
import type { ClassModel, ClientStack, Doc, NewDoc, WriteOp, WriteOptions, WriteOrigin } from '../../index.js';
import { HandlerRegistry, handlerRegistryOf } from '../../kit/index.js';

/** Container key of the per-stack handler registry (a TriggerHandlerRegistry). */
export const TRIGGER_HANDLERS = 'triggerHandlers';

const TRIGGER_HANDLER_KIND = 'trigger handler';

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

/**
 * The trigger handlers of one stack, by name: the kernel's one handler registry type (name rule,
 * DS_HANDLER_INVALID / DS_HANDLER_DUPLICATE / DS_HANDLER_UNKNOWN), of kind `trigger handler`.
 * One per stack (in its container), never shared.
 */
export class TriggerHandlerRegistry extends HandlerRegistry<TriggerHandler> {
  constructor() {
    super(TRIGGER_HANDLER_KIND);
  }
}

/** The registry of a stack (or of a plugin's kernel during setup); DS_PLUGIN_MISSING_REQUIREMENT without the plugin. */
export function triggerHandlers(owner: { container: AwilixContainer }): TriggerHandlerRegistry {
  return handlerRegistryOf<TriggerHandlerRegistry>(owner, TRIGGER_HANDLERS, TRIGGER_HANDLER_KIND, 'triggers');
}

/**
 * Registers code that stored triggers can name. A third-party trigger plugin calls it in its
 * setup (`requires: ['triggers']`); an application may call it with the stack after opening.
 */
export function registerTriggerHandler(owner: { container: AwilixContainer }, name: string, handler: TriggerHandler): void {
  triggerHandlers(owner).register(name, handler);
}
