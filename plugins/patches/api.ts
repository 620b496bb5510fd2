import { PATCH_ERRORS } from './errors.js';
import type { PatchHandlerRegistry } from './handlers.js';
import { checkPatch, compareVersions, contentOf, PATCH_CLASS, patchId, type Patch, type PatchDoc } from './model.js';
import { newestApplied, type PatchRunner } from './runner.js';
import type { AppliedPatch, FailedTarget, PatchStateStore } from './state.js';
import { type ClientStack, DocstackError } from '../../index.js';

/** A patch present on this replica but not applied here yet. */
export interface PendingPatch {
  id: string;
  target: string;
  version: string;
  description?: string;
  author?: string;
  /** set when this patch stopped its target here */
  failed?: FailedTarget;
  /** the version it waits for (authored on top of it, not applied here yet) */
  after?: string;
}

/** `stack.patches`. */
export class PatchesApi {
  constructor(
    private readonly stack: ClientStack,
    private readonly store: PatchStateStore,
    private readonly runner: PatchRunner,
    private readonly handlers: PatchHandlerRegistry,
  ) {}

  /**
   * Stores the patch (its document replicates) and applies it here, with the patches of its
   * target that come before it. Resolves with this replica's record; rejects with the coded
   * error that stopped it (DS_PATCH_FAILED and the rest). Applying a patch again is a no-op.
   */
  async apply(input: Patch): Promise<AppliedPatch> {
    const patch = checkPatch(input);
    const id = patchId(patch.target, patch.version);
    // a migrate naming unknown code is refused before anything is stored
    patch.changes.forEach((change, i) => {
      if (change.kind === 'migrate') this.handlers.require(change.handler, { path: `changes[${i}].handler` });
    });
    const existing = await this.stack.storage.get<PatchDoc>(id);
    if (existing && contentOf(existing) !== contentOf(patch)) {
      throw PATCH_ERRORS.patchConflict(`Another patch ${patch.target} ${patch.version} exists with other changes: give this one a new version.`, { details: { id } });
    }
    let state = await this.store.read();
    const done = state.applied.find((a) => a.id === id);
    if (done) return done;
    const failed = state.failed[patch.target];
    if (failed && failed.id !== id) {
      throw PATCH_ERRORS.patchBlocked(`${patch.target} is stopped here by ${failed.version} (${failed.code}): retry it first.`, { details: { target: patch.target, failed } });
    }
    const newest = newestApplied(state.applied, patch.target);
    if (newest && compareVersions(patch.version, newest.version) <= 0) {
      throw PATCH_ERRORS.patchOrder(`${patch.target} ${newest.version} is applied here: a new patch needs a higher version than ${patch.version}.`, { details: { target: patch.target, applied: newest.version } });
    }
    if (!existing) {
      try {
        await this.stack.createDoc({ '~class': PATCH_CLASS, ...patch, author: state.replica, ...(newest ? { after: newest.version } : {}) }, { id });
      } catch (err) {
        // the same patch stored meanwhile (a replica's copy arrived): it is the one to apply
        if ((err as DocstackError).code !== 'DS_DOC_EXISTS') throw err;
      }
    }
    if (failed) await this.retry(patch.target);
    else await this.runner.schedule();
    state = await this.store.read();
    const record = state.applied.find((a) => a.id === id);
    if (record) return record;
    const stopped = state.failed[patch.target];
    if (stopped) throw new DocstackError(stopped.code, stopped.message, { details: { target: patch.target, version: stopped.version, ...stopped.details } });
    throw PATCH_ERRORS.patchFailed(`${patch.target} ${patch.version} was not applied (the stack is closing).`, { details: { id } });
  }

  /** What this replica has applied: target, version, when, by which replica (its own id). */
  async list(): Promise<AppliedPatch[]> {
    return [...(await this.store.read()).applied];
  }

  /** Patch documents present here and not applied yet, in the order they apply. */
  async pending(): Promise<PendingPatch[]> {
    const state = await this.store.read();
    const applied = new Set(state.applied.map((a) => a.id));
    return (await this.runner.present())
      .filter((d) => !applied.has(d._id))
      .map((d) => {
        const failed = state.failed[d.target]?.id === d._id ? state.failed[d.target] : undefined;
        return { id: d._id, target: d.target, version: d.version, ...(d.description ? { description: d.description } : {}), ...(d.author ? { author: d.author } : {}), ...(d.after ? { after: d.after } : {}), ...(failed ? { failed } : {}) };
      });
  }

  /** Clears a stopped target (after registering the missing handler, say) and applies its pending patches. */
  async retry(target: string): Promise<void> {
    await this.runner.schedule({ retryFailed: target });
  }

  /** Applies whatever is pending now (received patches are applied on their own; this waits for it). */
  applyPending(): Promise<void> {
    return this.runner.schedule();
  }

  /** This replica's id, as `list()` records it in `by`. */
  async replica(): Promise<string> {
    return (await this.store.read()).replica;
  }
}
