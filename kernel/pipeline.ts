import { DocstackError } from './errors.js';
import type { KernelHooks, WriteBatch, WriteContext, WriteOp, WriteOrigin } from './hooks.js';
import { planClaims, type KeyClaim, type PrimaryKeyIndex } from './indexes/primary-keys.js';
import type { AttributeTypes } from './model/attribute-types.js';
import type { ClassModel, Doc } from './model/types.js';
import type { ClientStack } from './stack.js';
import type { Database } from './storage.js';

export interface WriteRequest {
  op: WriteOp;
  draft: Doc;
  previous?: Doc;
  classModel: ClassModel;
}

export interface WriteExtras {
  session?: unknown;
  transaction?: unknown;
  /**
   * How many writes led to this one: 0 for a caller's write, +1 for each write a plugin makes
   * in reaction to another (after-triggers); plugins refuse past their limit.
   */
  depth?: number;
}

/** The `change` event of a stack: one per document this stack stored. */
export interface DocChangeEvent {
  op: WriteOp;
  id: string;
  rev: string | undefined;
  className: string;
  origin: WriteOrigin;
  /** the document as validated (plaintext), with its new revision */
  doc: Doc;
}

/**
 * A class whose attributes use a type or config key no loaded plugin defines (an encrypted attribute
 * without the encryption plugin, a reference without domains) is read-only on this stack: its
 * writes are refused rather than stored unsealed or unchecked.
 */
function refuseMissingCapability(model: ClassModel, types: AttributeTypes): void {
  for (const attribute of Object.values(model.schema)) {
    const missing = types.missing(attribute);
    if (missing) {
      throw new DocstackError(
        'DS_CAPABILITY_MISSING',
        `"${model.name}" is read-only on this stack: its attribute "${attribute.name}" uses "${missing}", which no loaded plugin defines.`,
        { path: attribute.name, details: { className: model.name, capability: missing } },
      );
    }
  }
}

/** Documents per bulkDocs call: PouchDB's bulkDocs grows worse than linearly past ~1,000. */
const WRITE_CHUNK = 1000;

interface PipelineDeps {
  db: Database;
  hooks: KernelHooks;
  primaryKeys: PrimaryKeyIndex;
  stack: ClientStack;
}

/**
 * The write pipeline: beforeValidate → validate → (primary keys) → beforeWrite → bulkDocs →
 * afterWrite. A call is all-or-nothing: every draft is validated before anything is stored,
 * and a write-time failure (a concurrent writer) undoes what the call had stored.
 */
export class WritePipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async write(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}): Promise<Doc[]> {
    const { hooks } = this.deps;
    const { drafts, contexts, claims, releases } = await this.prepare(requests, origin, extras, false);

    const stored: Doc[] = [];
    for (let i = 0; i < drafts.length; i++) {
      stored.push(requests[i].classModel.simple ? drafts[i] : await hooks.beforeWrite.promise({ ...drafts[i] }, contexts[i]));
    }

    await this.deps.primaryKeys.claim(claims);
    try {
      await this.store(requests, stored);
    } catch (err) {
      await this.deps.primaryKeys.release(claims);
      throw err;
    }
    await this.deps.primaryKeys.release(releases);

    // what a write returns reads like any read (a value the write kept sealed reads as a marker)
    const results: Doc[] = [];
    for (let i = 0; i < drafts.length; i++) {
      const result = { ...drafts[i], _rev: stored[i]._rev } as Doc;
      results.push(requests[i].classModel.simple ? result : await hooks.afterRead.promise(result, { stack: this.deps.stack, classModel: requests[i].classModel, written: true }));
    }
    for (let i = 0; i < stored.length; i++) {
      this.deps.stack.emit('change', {
        op: contexts[i].op,
        id: stored[i]._id,
        rev: stored[i]._rev,
        className: requests[i].classModel.name,
        origin,
        doc: results[i],
      } satisfies DocChangeEvent);
    }
    for (let i = 0; i < stored.length; i++) await hooks.afterWrite.promise([stored[i]], contexts[i]);
    return results;
  }

  /**
   * Runs every check a write would run (hooks included) and stores nothing; returns the drafts as
   * beforeValidate left them (defaults applied, plaintext): what the write would store.
   */
  async check(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}): Promise<Doc[]> {
    return (await this.prepare(requests.map((r) => ({ ...r, draft: { ...r.draft } })), origin, extras, true)).drafts;
  }

  /** beforeValidate and validate for every draft, then the primary-key plan. */
  private async prepare(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras, dryRun: boolean) {
    const { hooks, stack } = this.deps;
    for (const request of requests) refuseMissingCapability(request.classModel, stack.attributeTypes);
    const drafts = requests.map((r) => r.draft);
    const batch: WriteBatch = { drafts, scratch: new Map() };
    const contexts: WriteContext[] = requests.map((r, index) => ({
      op: r.op,
      classModel: r.classModel,
      ...(r.previous ? { previous: r.previous } : {}),
      origin,
      stack,
      batch,
      index,
      depth: extras.depth ?? 0,
      dryRun,
      opaque: new Set<string>(),
      ...(extras.session !== undefined ? { session: extras.session } : {}),
      ...(extras.transaction !== undefined ? { transaction: extras.transaction } : {}),
    }));
    const piped = (i: number) => !requests[i].classModel.simple;
    // All drafts pass beforeValidate before any is validated, so validators see final siblings.
    for (let i = 0; i < drafts.length; i++) {
      if (piped(i)) drafts[i] = await hooks.beforeValidate.promise(drafts[i], contexts[i]);
    }
    for (let i = 0; i < drafts.length; i++) {
      if (piped(i)) await hooks.validate.promise(drafts[i], contexts[i]);
    }
    return { drafts, contexts, ...this.planKeys(requests, drafts) };
  }

  /** Keys to claim before the write and to release after it; a duplicate inside the batch is refused. */
  private planKeys(requests: WriteRequest[], drafts: Doc[]): { claims: KeyClaim[]; releases: KeyClaim[] } {
    const plan = planClaims(requests.map((r, i) => ({ model: r.classModel, next: r.op === 'delete' ? null : drafts[i], previous: r.previous })));
    if (plan.duplicates.length > 0) throw plan.duplicates[0].error;
    return { claims: plan.claims.map((c) => c.claim), releases: plan.releases };
  }

  /** bulkDocs in chunks; on any per-document failure, undo what this call stored and throw. */
  private async store(requests: WriteRequest[], stored: Doc[]): Promise<void> {
    const { db } = this.deps;
    const written: number[] = [];
    let failure: { index: number; status?: number; message?: string } | null = null;
    for (let start = 0; start < stored.length && !failure; start += WRITE_CHUNK) {
      const chunk = stored.slice(start, start + WRITE_CHUNK);
      const results = await db.bulkDocs(chunk as never[]);
      results.forEach((result, offset) => {
        const index = start + offset;
        if ('error' in result && result.error) {
          failure ??= { index, status: result.status, message: result.message };
        } else {
          stored[index]._rev = (result as PouchDB.Core.Response).rev;
          written.push(index);
        }
      });
    }
    if (!failure) return;
    await this.undo(requests, stored, written);
    const { index, status, message } = failure as { index: number; status?: number; message?: string };
    const id = stored[index]._id;
    if (status === 409 && requests[index].op === 'create') {
      throw new DocstackError('DS_DOC_EXISTS', `A document with the id "${id}" already exists.`, { details: { id } });
    }
    if (status === 409) {
      throw new DocstackError('DS_DOC_CONFLICT', `"${id}" was changed by another writer; read it again and retry.`, { details: { id } });
    }
    throw new DocstackError('DS_DOC_CONFLICT', `Storing "${id}" failed: ${message ?? 'unknown storage error'}.`, { details: { id, status } });
  }

  /** Compensates a partial bulk write: new documents removed, updated ones restored. */
  private async undo(requests: WriteRequest[], stored: Doc[], written: number[]): Promise<void> {
    const reverts = written.map((i) => {
      const previous = requests[i].previous;
      return previous ? { ...previous, _rev: stored[i]._rev } : { _id: stored[i]._id, _rev: stored[i]._rev, _deleted: true };
    });
    if (reverts.length > 0) await this.deps.db.bulkDocs(reverts as never[]);
  }
}
