import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { PendingDocs, WriteBatch, WriteContext, WriteOp, WriteOrigin, WriteSession } from '../contracts/hooks.js';
import type { ClassModel, Doc } from '../contracts/model.js';
import type { StackPort } from '../contracts/stack-port.js';
import type { UnitItem, UnitOfWork, WritePart, WriteShare } from '../contracts/unit-of-work.js';
import type { KernelHooks } from './hooks.js';
import { KEEP_AT_MOST, keepShape, lastKept } from '../storage/kept-shapes.js';
import { isPromiseLike } from '../storage/settle.js';
import { CommitGroup } from './commit-group.js';
import { storeUnit, storeUnitThen, type UnitDeps } from './unit-of-work.js';
import { planFor, type WritePlan } from './write-plan.js';
import { runSeries, runWaterfall } from './planned-calls.js';

export interface WriteRequest {
  op: WriteOp;
  draft: Doc;
  previous?: Doc;
  classModel: ClassModel;
}

export interface WriteExtras {
  /** who makes the write (WriteContext.session) */
  session?: WriteSession;
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
    throw KERNEL_ERRORS.stackOptionsInvalid(`depth must be a whole number ≥ 0 (got ${String(depth)}).`, { path: 'depth' });
  }
  return { session, transaction, depth };
}

/** A write between its hooks: what prepare() built, then checked. */
interface Checking {
  requests: WriteRequest[];
  origin: WriteOrigin;
  dryRun: boolean;
  plans: WritePlan[];
  drafts: Doc[];
  contexts: WriteContext[];
}

interface Prepared {
  drafts: Doc[];
  contexts: WriteContext[];
  plans: WritePlan[];
  items: UnitItem[];
  shares: WriteShare[];
  work: UnitOfWork;
}

/** WriteBatch with its scratch map made on first use: most writes' taps never touch it. */
class Batch implements WriteBatch {
  #scratch: Map<string, unknown> | undefined;
  readonly siblings?: readonly Doc[];
  constructor(
    readonly drafts: Doc[],
    siblings: readonly Doc[] | undefined,
  ) {
    if (siblings) this.siblings = siblings;
  }
  get scratch(): Map<string, unknown> {
    return (this.#scratch ??= new Map());
  }
}
// its hidden class outlives the writes (storage/kept-shapes.ts; Node only: the browser files have no bytes for it)
if (!globalThis.docstackBrowserBuild) keepShape(new Batch([], undefined));

const firstOf = (docs: Doc[]): Doc => docs[0];

/** Does a beforeWrite, afterRead or afterWrite tap see one of these writes? (A loop: it runs for every write.) */
function anyTapSees(requests: WriteRequest[], plans: WritePlan[]): boolean {
  for (let i = 0; i < plans.length; i++) {
    const plan = plans[i];
    if (plan.afterWrite || (!requests[i].classModel.simple && (plan.beforeWrite || plan.afterRead))) return true;
  }
  return false;
}

/** The usual write, stored: its `change` events, and its drafts (or the first) as the answer (Node: the browser files write every write as writeTapped). */
function answerStored(deps: PipelineDeps, requests: WriteRequest[], origin: WriteOrigin, contexts: WriteContext[], drafts: Doc[], first: boolean): Doc[] | Doc {
  announce(deps, requests, origin, contexts, drafts, drafts);
  return first ? drafts[0] : drafts;
}

/** Each stored document's `change` event, with what the write answers for it. */
function announce(deps: PipelineDeps, requests: WriteRequest[], origin: WriteOrigin, contexts: WriteContext[], stored: Doc[], results: Doc[]): void {
  for (let i = 0; i < stored.length; i++) {
    deps.announce({ op: contexts[i].op, id: stored[i]._id, rev: stored[i]._rev, className: requests[i].classModel.name, origin, doc: results[i] });
  }
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

interface PipelineDeps extends UnitDeps {
  hooks: KernelHooks;
  stack: StackPort;
  /** tells the stack's listeners (`change`) */
  announce(event: DocChangeEvent): void;
}

/** The pipeline's deps as one object literal (WritePipeline's constructor says why not a spread). */
function writtenOut(deps: PipelineDeps): PipelineDeps {
  const { db, lock, feed, hooks, stack, announce } = deps;
  return { db, lock, feed, hooks, stack, announce, group: new CommitGroup(deps) };
}

/**
 * The write pipeline: beforeValidate → validate → beforeWrite → bulkDocs (documents and what the
 * write parts add: the engine's primary-key entries and class counters, in one call) →
 * afterWrite. A call is all-or-nothing: every draft is validated before anything is stored, and
 * a write-time failure (a concurrent writer) undoes what the call had stored.
 */
export class WritePipeline {
  /** the unit-of-work participants, in the order they were added (kernel.addWritePart) */
  private readonly parts: WritePart[] = [];

  private readonly deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    // concurrent small writes of this pipeline share storage calls (group commit). Written out, not
    // spread: every write reads this object, and a spread copy's hidden class depends on the state
    // of V8's clone cache when the stack opens — after a few stacks it changed, and the write
    // path's optimized code was thrown away (a "wrong map" deopt per function) for each new stack
    // (docs/benchmarks.md#code-shared-by-every-stack); the browser files keep the spread, which
    // costs them no bytes (their budget has none to spare)
    this.deps = globalThis.docstackBrowserBuild ? { ...deps, group: new CommitGroup(deps) } : writtenOut(deps);
  }

  /** Adds a participant to every write from now on; a second part of the same name is refused. */
  addPart(part: WritePart): void {
    if (!part || typeof part.name !== 'string' || typeof part.begin !== 'function') {
      throw KERNEL_ERRORS.pluginInvalid('A write part needs a name and a begin function.');
    }
    if (this.parts.some((p) => p.name === part.name)) {
      throw KERNEL_ERRORS.pluginDuplicate(`A write part named "${part.name}" is already added.`, { details: { part: part.name } });
    }
    this.parts.push(part);
  }

  /**
   * Writes the requests (all or nothing). The usual write — prepared without a promise, seen by no
   * beforeWrite, afterRead or afterWrite tap — has no async frame: it answers its stored drafts in
   * a `then` on the store, so a serial write pays for the promises it waits on and no more.
   */
  write(requests: WriteRequest[], origin: WriteOrigin, extras?: WriteExtras): Promise<Doc[]>;
  /** `first`: answers the first request's document (stack.createDoc on Node), not a list of one — no `then` to take it out. */
  write(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras, first: true): Promise<Doc>;
  write(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}, first = false): Promise<Doc[] | Doc> {
    try {
      const prepared = this.prepare(requests, origin, extras, false);
      // the usual write (Node: the browser files take writeTapped for every write, no bytes for this)
      if (!globalThis.docstackBrowserBuild && !isPromiseLike(prepared) && !anyTapSees(requests, prepared.plans)) {
        const { drafts, contexts, items, shares, work } = prepared;
        // a serial writer's drafts outlive their write until the next one (storage/kept-shapes.ts): their hidden classes, and the code that checks them, survive a full collection between two writes
        if (drafts.length <= KEEP_AT_MOST) lastKept.drafts = drafts;
        // bound methods, not closures per write: V8 keeps a function's optimized code only while
        // some function object of its kind lives (docs/benchmarks.md#code-shared-by-every-stack)
        return storeUnitThen(this.deps, { items, shares, guard: extras.guard, renew: this.begin.bind(this, work) }, answerStored.bind(null, this.deps, requests, origin, contexts, drafts, first));
      }
      const written = this.writeTapped(requests, origin, extras, prepared);
      return !globalThis.docstackBrowserBuild && first ? written.then(firstOf) : written; // (the browser files never ask for the first)
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A write some tap sees (beforeWrite, afterRead, afterWrite), or prepared with a promise. */
  private async writeTapped(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras, prepared: Prepared | Promise<Prepared>): Promise<Doc[]> {
    const { drafts, contexts, plans, items, shares, work } = isPromiseLike(prepared) ? await prepared : prepared;

    // a copy only for a class whose beforeWrite taps (encryption) may change what is stored
    const stored: Doc[] = [];
    for (let i = 0; i < drafts.length; i++) {
      const beforeWrite = requests[i].classModel.simple ? null : plans[i].beforeWrite;
      if (!beforeWrite) {
        stored.push(drafts[i]);
        continue;
      }
      const written = runWaterfall(beforeWrite, { ...drafts[i] }, contexts[i]);
      stored.push(isPromiseLike(written) ? await written : written);
    }

    for (let i = 0; i < stored.length; i++) (items[i] as { doc: Doc }).doc = stored[i];
    // a create refused by storage and revived by a part (a soft-deleted natural id) is tried again with new shares
    await storeUnit(this.deps, { items, shares, guard: extras.guard, renew: () => this.begin(work) });

    // what a write returns reads like any read (a value the write kept sealed reads as a marker);
    // a copy: the stored object stays what afterWrite taps see (no copy when nothing taps either)
    const results: Doc[] = [];
    for (let i = 0; i < drafts.length; i++) {
      const afterRead = requests[i].classModel.simple ? null : plans[i].afterRead;
      if (!afterRead && !plans[i].afterWrite && stored[i] === drafts[i]) {
        results.push(stored[i]);
        continue;
      }
      const result = { ...drafts[i], _rev: stored[i]._rev } as Doc;
      const read = afterRead ? runWaterfall(afterRead, result, { stack: this.deps.stack, classModel: requests[i].classModel, written: true }) : result;
      results.push(isPromiseLike(read) ? await read : read);
    }
    announce(this.deps, requests, origin, contexts, stored, results);
    for (let i = 0; i < stored.length; i++) {
      const afterWrite = plans[i].afterWrite;
      const after = afterWrite ? runSeries(afterWrite, [stored[i]], contexts[i]) : undefined;
      if (isPromiseLike(after)) await after;
    }
    return results;
  }

  /**
   * Runs every check a write would run (hooks included) and stores nothing; returns the drafts as
   * beforeValidate left them (defaults applied, plaintext): what the write would store.
   */
  async check(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}): Promise<Doc[]> {
    return (await this.prepare(requests.map((r) => ({ ...r, draft: { ...r.draft } })), origin, extras, true)).drafts;
  }

  /**
   * beforeValidate and validate for every draft, then each write part's share and its check;
   * a promise only once a hook or a part answers with one (a serial write usually has none).
   */
  private prepare(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras, dryRun: boolean): Prepared | Promise<Prepared> {
    const { hooks, stack } = this.deps;
    const plans: WritePlan[] = [];
    // one capability check per class and one plan lookup per run of one class and op (a set only once a second class appears)
    let admitted: Set<ClassModel> | undefined;
    let lastModel: ClassModel | undefined;
    let lastOp: WriteRequest['op'] | undefined;
    let lastPlan: WritePlan | undefined;
    for (const { classModel, op } of requests) {
      if (classModel !== lastModel || op !== lastOp) {
        if (classModel !== lastModel && !admitted?.has(classModel)) {
          for (const part of this.parts) part.admit?.(classModel);
          if (lastModel) (admitted ??= new Set([lastModel])).add(classModel);
        }
        lastPlan = planFor(hooks, classModel, origin, op);
        lastModel = classModel;
        lastOp = op;
      }
      plans.push(lastPlan!);
    }
    // loops, not `map` with an arrow (a closure and a builtin's call per write)
    const drafts: Doc[] = new Array(requests.length);
    for (let index = 0; index < requests.length; index++) drafts[index] = requests[index].draft;
    const batch: WriteBatch = new Batch(drafts, extras.siblings);
    const depth = extras.depth ?? 0;
    // built field by field (no spread of temporary objects): a large batch makes one per document
    const contexts: WriteContext[] = new Array(requests.length);
    for (let index = 0; index < requests.length; index++) {
      const r = requests[index];
      const context: WriteContext = { op: r.op, classModel: r.classModel, origin, stack, batch, index, depth, dryRun, opaque: new Set<string>() };
      if (r.previous) context.previous = r.previous;
      if (extras.session !== undefined) context.session = extras.session;
      if (extras.transaction !== undefined) context.transaction = extras.transaction;
      if (extras.pending) context.pending = extras.pending;
      contexts[index] = context;
    }
    return this.checkDrafts({ requests, origin, dryRun, plans, drafts, contexts }, 0, 0);
  }

  /**
   * Stage 0: beforeValidate over every draft; stage 1: validate over every draft (all drafts pass
   * beforeValidate before any is validated, so validators see final siblings); then the parts'
   * shares. Runs on synchronously until a hook answers with a promise, then goes on from there.
   */
  private checkDrafts(p: Checking, stage: 0 | 1, from: number): Prepared | Promise<Prepared> {
    const { requests, plans, drafts, contexts } = p;
    if (stage === 0) {
      for (let i = from; i < drafts.length; i++) {
        const beforeValidate = plans[i].beforeValidate;
        if (requests[i].classModel.simple || !beforeValidate) continue;
        const draft = runWaterfall(beforeValidate, drafts[i], contexts[i]);
        if (isPromiseLike(draft)) {
          return Promise.resolve(draft).then((done) => {
            drafts[i] = done;
            return this.checkDrafts(p, 0, i + 1);
          });
        }
        drafts[i] = draft;
      }
      from = 0;
    }
    for (let i = from; i < drafts.length; i++) {
      const validate = plans[i].validate;
      const checking = !requests[i].classModel.simple && validate ? runSeries(validate, drafts[i], contexts[i]) : undefined;
      if (isPromiseLike(checking)) return Promise.resolve(checking).then(() => this.checkDrafts(p, 1, i + 1));
    }
    const items: UnitItem[] = new Array(requests.length);
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i];
      items[i] = { doc: drafts[i], previous: r.previous, classModel: r.classModel, op: r.op, context: contexts[i] };
    }
    const work: UnitOfWork = { items, origin: p.origin, dryRun: p.dryRun };
    const begun = this.begin(work);
    if (isPromiseLike(begun)) return Promise.resolve(begun).then((shares) => ({ drafts, contexts, plans, items, shares, work }));
    return { drafts, contexts, plans, items, shares: begun, work };
  }

  /** Each write part's share of a write, checked (waiting only on a check that returns a promise). */
  private begin(work: UnitOfWork): WriteShare[] | Promise<WriteShare[]> {
    const shares: WriteShare[] = [];
    for (const part of this.parts) {
      const share = part.begin(work);
      if (share) shares.push(share);
    }
    for (let k = 0; k < shares.length; k++) {
      const checking = shares[k].checked?.();
      if (isPromiseLike(checking)) return this.checkRest(shares, k, checking);
    }
    return shares;
  }

  private async checkRest(shares: WriteShare[], from: number, checking: PromiseLike<void>): Promise<WriteShare[]> {
    await checking;
    for (let k = from + 1; k < shares.length; k++) await shares[k].checked?.();
    return shares;
  }
}
