import type { DomainRegistry } from '../domains/index.js';
import { applyChange } from './changes.js';
import { PATCH_ERRORS } from './errors.js';
import type { PatchHandlerRegistry } from './handlers.js';
import { compareVersions, PATCH_CLASS, patchId, type PatchDoc } from './model.js';
import type { AppliedPatch, PatchStateStore, RunState } from './state.js';
import { type ClientStack, DocstackError } from '../../index.js';
import { nowIso } from '../../kit/index.js';

/** `patch:progress`: a change over documents moved on. */
export interface PatchProgressEvent {
  id: string;
  target: string;
  version: string;
  change: number;
  kind: string;
  done: number;
  total: number;
}

/** `patch:failed`: the patch stopped its target on this replica. */
export interface PatchFailedEvent {
  id: string;
  target: string;
  version: string;
  code: string;
  message: string;
}

/** Thrown between two batches when the stack closes: not a failure, the run resumes on the next open. */
class Interrupted extends Error {}

/**
 * Applies the patch documents this replica holds, one at a time (a queue per stack), in semver
 * order per target, and records each in the replica's `_local` state once every change is done.
 */
export class PatchRunner {
  private queue: Promise<void> = Promise.resolve();
  private closing = false;

  constructor(
    private readonly stack: ClientStack,
    private readonly store: PatchStateStore,
    private readonly handlers: PatchHandlerRegistry,
    private readonly domains: DomainRegistry | undefined,
  ) {}

  /** Queues a pass over the pending patches; resolves when that pass is over (failures are events, not rejections). */
  schedule(options: { retryFailed?: true | string; nextTurn?: boolean } = {}): Promise<void> {
    this.queue = this.queue
      .then(async () => {
        if (options.nextTurn) await new Promise((resolve) => setTimeout(resolve, 0));
        if (this.closing || !this.stack.isOpen) return;
        // a stopped target gets another try (once per open, or retry(target)): the handler may be registered now
        if (options.retryFailed) {
          await this.store.update((s) => {
            if (options.retryFailed === true) s.failed = {};
            else delete s.failed[options.retryFailed as string];
          });
        }
        await this.drain();
      })
      .catch(() => undefined);
    return this.queue;
  }

  /** Stops between two batches and waits for the queue (onClose). */
  async stop(): Promise<void> {
    this.closing = true;
    await this.queue;
  }

  /** Patch documents present on this replica, by target and semver. */
  async present(): Promise<PatchDoc[]> {
    const rows = await this.stack.storage.range({ prefix: `${PATCH_CLASS}-`, includeDocs: true });
    return rows
      .map((r) => r.doc as unknown as PatchDoc)
      .filter((d) => d['~class'] === PATCH_CLASS && (d as { active?: boolean }).active !== false)
      .sort((a, b) => (a.target === b.target ? compareVersions(a.version, b.version) : a.target < b.target ? -1 : 1));
  }

  private async drain(): Promise<void> {
    for (const doc of await this.present()) {
      if (this.closing) return;
      const state = await this.store.read(); // again for each: the one before may have been applied
      const applied = new Set(state.applied.map((a) => a.id));
      if (applied.has(doc._id) || state.failed[doc.target]) continue;
      // authored on top of a version not applied here yet (not arrived, or stopped): it waits
      if (doc.after !== undefined && !applied.has(patchId(doc.target, doc.after))) continue;
      const newest = newestApplied(state.applied, doc.target);
      if (newest && compareVersions(doc.version, newest.version) <= 0) {
        await this.fail(doc, PATCH_ERRORS.patchOrder(`${doc.target} ${doc.version} arrived after ${newest.version} was applied here: patches apply in semver order.`, { details: { target: doc.target, version: doc.version, applied: newest.version } }));
        continue;
      }
      try {
        await this.run(doc);
      } catch (err) {
        if (err instanceof Interrupted) return;
        await this.fail(doc, err);
      }
    }
  }

  private async run(doc: PatchDoc): Promise<void> {
    const state = await this.store.read();
    const resumed = state.running?.id === doc._id ? state.running : null;
    for (let change = resumed?.change ?? 0; change < doc.changes.length; change++) {
      const run: RunState = resumed && resumed.change === change ? { ...resumed } : { id: doc._id, change, cursor: null, batch: [], done: 0 };
      await this.store.update((s) => {
        s.running = { ...run };
      });
      const kind = doc.changes[change].kind;
      try {
        await applyChange(doc.changes[change], {
          stack: this.stack,
          patch: doc,
          handlers: this.handlers,
          domains: this.domains,
          pass: {
            stack: this.stack,
            store: this.store,
            run,
            progress: (done, total) => this.stack.emit('patch:progress', { id: doc._id, target: doc.target, version: doc.version, change, kind, done, total } satisfies PatchProgressEvent),
            checkOpen: () => {
              if (this.closing) throw new Interrupted();
            },
          },
        });
      } catch (err) {
        if (err instanceof Interrupted || (err as DocstackError).code === 'DS_PATCH_FAILED') throw err;
        const cause = err as DocstackError;
        throw PATCH_ERRORS.patchFailed(`${doc.target} ${doc.version}, change ${change} (${kind}): ${cause.message ?? String(err)}`, {
          cause: err,
          details: { target: doc.target, version: doc.version, change, kind, code: cause.code ?? null },
        });
      }
    }
    const record: AppliedPatch = { target: doc.target, version: doc.version, id: doc._id, at: nowIso(this.stack.clock), by: state.replica };
    await this.store.update((s) => {
      s.applied.push(record);
      s.running = null;
    });
    this.stack.emit('patch:applied', record);
  }

  private async fail(doc: PatchDoc, err: unknown): Promise<void> {
    const error = err instanceof DocstackError ? err : PATCH_ERRORS.patchFailed(String((err as Error)?.message ?? err), { cause: err });
    await this.store.update((s) => {
      s.failed[doc.target] = { version: doc.version, id: doc._id, code: error.code, message: error.message, at: nowIso(this.stack.clock), ...(error.details ? { details: error.details } : {}) };
    });
    this.stack.emit('patch:failed', { id: doc._id, target: doc.target, version: doc.version, code: error.code, message: error.message } satisfies PatchFailedEvent);
  }
}

export function newestApplied(applied: readonly AppliedPatch[], target: string): AppliedPatch | undefined {
  return applied.filter((a) => a.target === target).sort((a, b) => compareVersions(a.version, b.version)).at(-1);
}
