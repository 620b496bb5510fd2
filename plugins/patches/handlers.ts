import type { AwilixContainer } from 'awilix';
import type { ClientStack, Doc } from '../../index.js';
import { HandlerRegistry, handlerRegistryOf } from '../../kit/index.js';

/** Container key of the per-stack registry of migrate handlers. */
export const PATCH_HANDLERS = 'patchHandlers';

const KIND = 'patch handler';

export interface PatchHandlerContext {
  /** the change's `params` */
  params: Record<string, unknown>;
  stack: ClientStack;
  target: string;
  version: string;
}

/**
 * The code a `migrate` change names: given a document, the changes to make to it (as
 * `updateDoc` takes them; null removes an attribute), or nothing to leave it as it is. Runs
 * once per document per replica; a document a peer migrated arrives migrated, and each replica
 * runs the migrate over what it holds, so return nothing for a document already in its new shape.
 */
export type PatchHandler = (doc: Doc, context: PatchHandlerContext) => Promise<Record<string, unknown> | void | undefined> | Record<string, unknown> | void | undefined;

export class PatchHandlerRegistry extends HandlerRegistry<PatchHandler> {
  constructor() {
    super(KIND);
  }
}

export function patchHandlers(owner: { container: AwilixContainer }): PatchHandlerRegistry {
  return handlerRegistryOf<PatchHandlerRegistry>(owner, PATCH_HANDLERS, KIND, 'patches');
}

/** Registers code a stored `migrate` change can name (in a plugin's setup, or with the stack after opening). */
export function registerPatchHandler(owner: { container: AwilixContainer }, name: string, handler: PatchHandler): void {
  patchHandlers(owner).register(name, handler);
}
