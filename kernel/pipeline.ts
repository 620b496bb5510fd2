import type { ChangeFeed } from '../storage/change-feed.js';
import { DocstackError } from './errors.js';
import type { KernelHooks, PendingDocs, WriteBatch, WriteContext, WriteOp, WriteOrigin } from './hooks.js';
import type { ClassCounts } from '../engine/indexes/class-counts.js';
import { planClaims, type KeyClaim, type PrimaryKeyIndex } from '../engine/indexes/primary-keys.js';
import type { AttributeTypes } from '../engine/model/attribute-types.js';
import type { ClassModel, Doc } from '../contracts/model.js';
import type { ClientStack } from './stack.js';
import { storeWrites } from './pipeline-store.js';
import { planFor, type WritePlan } from './write-plan.js';
import type { Database } from '../storage/database.js';
import type { WriteLock } from '../storage/write-lock.js';

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
  /**
   * Run inside the store's write lock right before the documents are written (after every check):
   * a throw refuses the call with nothing stored. The transactions plugin checks there that what a
   * transaction read is unchanged, so no writer of this process slips in between check and write.
   * Internal: extrasOf never takes it from a caller's options.
   */
  guard?: () => Promise<void>;
  /** Documents the write sees as if stored though they are not yet (WriteContext.pending). */
  pending?: PendingDocs;
  /** stack.ingest: the documents arriving with these (WriteBatch.siblings) */
  siblings?: readonly Doc[];
}

/** Picks the pipeline extras out of a caller's write options (never their other keys). */
export function extrasOf(options: WriteExtras): WriteExtras {
  const { session, transaction, depth } = options;
  if (depth !== undefined && (!Number.isInteger(depth) || depth < 0)) {
    throw new DocstackError('DS_STACK_OPTIONS_INVALID', `depth must be a whole number ≥ 0 (got ${String(depth)}).`, { path: 'depth' });
  }
  return { session, transaction, depth };
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

interface PipelineDeps {
  db: Database;
  hooks: KernelHooks;
  primaryKeys: PrimaryKeyIndex;
  counts: ClassCounts;
  lock: WriteLock;
  feed?: ChangeFeed;
  stack: ClientStack;
}

/**
 * The write pipeline: beforeValidate → validate → beforeWrite → bulkDocs (documents, their
 * primary-key entries and class counters in one call) → afterWrite. A call is all-or-nothing:
 * every draft is validated before anything is stored, and a write-time failure (a concurrent
 * writer) undoes what the call had stored.
 */
export class WritePipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async write(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}): Promise<Doc[]> {
    const { drafts, contexts, plans, claims, releases } = await this.prepare(requests, origin, extras, false);

    // a copy only for a class whose beforeWrite taps (encryption) may change what is stored
    const stored: Doc[] = [];
    for (let i = 0; i < drafts.length; i++) {
      const beforeWrite = requests[i].classModel.simple ? null : plans[i].beforeWrite;
      stored.push(beforeWrite ? await beforeWrite.promise({ ...drafts[i] }, contexts[i]) : drafts[i]);
    }

    await storeWrites(
      this.deps,
      stored.map((doc, i) => ({ doc, previous: requests[i].previous, className: requests[i].classModel.name, create: requests[i].op === 'create' })),
      claims,
      releases,
      extras.guard,
    );

    // what a write returns reads like any read (a value the write kept sealed reads as a marker);
    // a copy: the stored object stays what afterWrite taps see
    const results: Doc[] = [];
    for (let i = 0; i < drafts.length; i++) {
      const result = { ...drafts[i], _rev: stored[i]._rev } as Doc;
      const afterRead = requests[i].classModel.simple ? null : plans[i].afterRead;
      results.push(afterRead ? await afterRead.promise(result, { stack: this.deps.stack, classModel: requests[i].classModel, written: true }) : result);
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
    for (let i = 0; i < stored.length; i++) await plans[i].afterWrite?.promise([stored[i]], contexts[i]);
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
    const plans: WritePlan[] = [];
    const checked = new Map<ClassModel, WritePlan>(); // one capability check and one plan lookup per class per call
    for (const { classModel } of requests) {
      let plan = checked.get(classModel);
      if (!plan) {
        refuseMissingCapability(classModel, stack.attributeTypes);
        checked.set(classModel, (plan = planFor(hooks, classModel, origin)));
      }
      plans.push(plan);
    }
    const drafts = requests.map((r) => r.draft);
    const batch: WriteBatch = { drafts, scratch: new Map(), ...(extras.siblings ? { siblings: extras.siblings } : {}) };
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
      ...(extras.pending ? { pending: extras.pending } : {}),
    }));
    const piped = (i: number) => !requests[i].classModel.simple;
    // All drafts pass beforeValidate before any is validated, so validators see final siblings.
    for (let i = 0; i < drafts.length; i++) {
      const beforeValidate = plans[i].beforeValidate;
      if (piped(i) && beforeValidate) drafts[i] = await beforeValidate.promise(drafts[i], contexts[i]);
    }
    for (let i = 0; i < drafts.length; i++) {
      const validate = plans[i].validate;
      if (piped(i) && validate) await validate.promise(drafts[i], contexts[i]);
    }
    return { drafts, contexts, plans, ...this.planKeys(requests, drafts) };
  }

  /** Keys the write claims and gives back, by draft; a duplicate inside the batch is refused. */
  private planKeys(requests: WriteRequest[], drafts: Doc[]): { claims: { index: number; claim: KeyClaim }[]; releases: { index: number; claim: KeyClaim }[] } {
    const plan = planClaims(requests.map((r, i) => ({ model: r.classModel, next: r.op === 'delete' ? null : drafts[i], previous: r.previous })));
    if (plan.duplicates.length > 0) throw plan.duplicates[0].error;
    const indexOf = new Map(drafts.map((d, i) => [d._id, i]));
    return { claims: plan.claims, releases: plan.releases.map((claim) => ({ index: indexOf.get(claim.docId) ?? 0, claim })) };
  }
}
