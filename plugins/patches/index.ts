import { asValue } from 'awilix';
import { domainsPlugin } from '../domains/index.js';
import { PatchesApi } from './api.js';
import { patchErrorList } from './errors.js';
import { PATCH_HANDLERS, PatchHandlerRegistry } from './handlers.js';
import { patchClassPatch } from './meta-class-patch.js';
import { PATCH_CLASS } from './model.js';
import { PatchRunner } from './runner.js';
import { PatchStateStore } from './state.js';
import { definePlugin } from '../../index.js';
import { tapWhen } from '../../kit/index.js';

/**
 * Versioned patches: `{ target, version, changes }` stored as replicated documents with a fixed
 * id, applied once per replica in semver order per target, resumable, and applied on arrival
 * when a peer's patch replicates in (docs/patches.md).
 */
export const patchesPlugin = definePlugin({
  name: 'patches',
  optional: ['domains'],
  errors: patchErrorList,
  patches: [patchClassPatch],
  setup({ hooks, stack, storage, container, use }): PatchesApi {
    const handlers = new PatchHandlerRegistry();
    container.register(PATCH_HANDLERS, asValue(handlers));
    const store = new PatchStateStore(storage);
    const runner = new PatchRunner(stack, store, handlers, use(domainsPlugin));
    // a patch a peer made: applied in order once stored (not awaited: the sync goes on meanwhile)
    hooks.afterWrite.tapPromise(tapWhen('patches', (model, origin) => origin === 'replication' && model.name === PATCH_CLASS), async (docs, ctx) => {
      if (ctx.origin === 'replication' && ctx.classModel.name === PATCH_CLASS && docs.length > 0) void runner.schedule();
    });
    // what arrived while closed, or a patch interrupted mid-way: resumed in the background, from
    // the next turn of the event loop (handlers registered right after createStack are in by then)
    hooks.onOpen.tap({ name: 'patches', stage: 100 }, () => void runner.schedule({ retryFailed: true, nextTurn: true }));
    // documents written against a schema still on its way are held by the kernel's ingest and
    // released when the class document changes here — a patch applied changes it too
    hooks.onClose.tapPromise({ name: 'patches', stage: -200 }, () => runner.stop());
    return new PatchesApi(stack, store, runner, handlers);
  },
  members: (api) => ({
    /** apply, list, pending, retry: versioned patches (docs/patches.md) */
    patches: api,
  }),
});

export { PatchesApi, type PendingPatch } from './api.js';
export { registerPatchHandler, PATCH_HANDLERS, type PatchHandler, type PatchHandlerContext } from './handlers.js';
export { PATCH_CLASS, patchId, compareVersions, type Patch, type PatchChange, type PatchDoc } from './model.js';
export type { AppliedPatch, FailedTarget } from './state.js';
export type { PatchProgressEvent, PatchFailedEvent } from './runner.js';
