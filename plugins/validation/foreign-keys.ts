import { type AttributeModel, type Doc, type WriteContext } from '../../index.js';
import { VALIDATION_ERRORS } from './errors.js';
import type { TargetCache } from './target-cache.js';

type Target = Pick<Doc, '_id' | '~class' | 'active'> | null;

const SCRATCH_KEY = 'validation:foreign-keys';
const FEW_IDS = 8;

interface BatchTargets {
  /**
   * documents written by the same batch: a target may be written alongside its referrers, and a
   * target a local batch deletes (a transaction's commit) is gone (inactive) for them; a peer's
   * batch carries histories, where a deleted target's referrers were made while it lived, so
   * there only active drafts count and the rest is the store's answer, as before; under
   * stack.ingest also the documents arriving with it (WriteBatch.siblings: the rest of a peer's
   * batch, held documents retried together — two documents naming each other validate together)
   */
  inBatch: Map<string, Doc>;
  /** one allDocs per class of the batch, for every foreign-key id its drafts name */
  byClass: Map<string, Promise<Map<string, Target>>>;
}

function idsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]; // the usual reference: one list, not two
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

function batchTargets(ctx: WriteContext): BatchTargets {
  let state = ctx.batch.scratch.get(SCRATCH_KEY) as BatchTargets | undefined;
  if (!state) {
    const inBatch = new Map<string, Doc>();
    for (const sibling of ctx.batch.siblings ?? []) inBatch.set(sibling._id, sibling);
    const deletesCount = ctx.origin !== 'replication';
    for (const draft of ctx.batch.drafts) if (deletesCount || draft.active !== false) inBatch.set(draft._id, draft);
    state = { inBatch, byClass: new Map() };
    ctx.batch.scratch.set(SCRATCH_KEY, state);
  }
  return state;
}

async function fetchTargets(ctx: WriteContext, foreignKeys: AttributeModel[], cache?: TargetCache): Promise<Map<string, Target>> {
  const state = batchTargets(ctx);
  const className = ctx.classModel.name;
  let pending = state.byClass.get(className);
  if (!pending) {
    const targets = new Map<string, Target>();
    const ids = new Set<string>();
    for (const draft of ctx.batch.drafts) {
      if (draft['~class'] !== className) continue;
      for (const fk of foreignKeys) {
        for (const id of idsOf(draft[fk.name])) {
          if (state.inBatch.has(id) || ctx.pending?.(id) || targets.has(id)) continue;
          const known = cache?.fresh(id);
          if (known) targets.set(id, known);
          else ids.add(id);
        }
      }
    }
    pending = ids.size === 0 ? Promise.resolve(targets) : readTargets(ctx, [...ids], targets, cache);
    state.byClass.set(className, pending);
  }
  return pending;
}

/** Reads targets the cache did not know into `targets` (and the cache). */
async function readTargets(ctx: WriteContext, list: string[], targets: Map<string, Target>, cache?: TargetCache): Promise<Map<string, Target>> {
  const read = cache?.mark();
  // allDocs with keys runs one range query per key inside PouchDB: for a handful of ids
  // plain gets are several times cheaper; for a batch, one call beats thousands of gets
  const docs = list.length <= FEW_IDS ? await Promise.all(list.map((id) => getTarget(ctx.stack, id))) : await ctx.stack.storage.getMany(list);
  list.forEach((id, i) => {
    const doc = docs[i];
    targets.set(id, doc ? { _id: doc._id, '~class': doc['~class'], active: doc.active } : null);
    if (read) cache!.keep(read, id, doc);
  });
  return targets;
}

/**
 * Every id of every foreign key written must name an active document of the attribute's
 * targetClass. On update only the ids the update introduces are checked: a reference that
 * was valid when written and whose target was deleted since does not freeze the document
 * (editing another attribute stays possible; moving the reference is checked). A target written
 * by the same batch, or pending (`ctx.pending`: a transaction's staged writes), is taken as it
 * will be stored, deleted ones as inactive.
 */
export function checkForeignKeys(draft: Doc, ctx: WriteContext, foreignKeys: AttributeModel[], cache?: TargetCache): void | Promise<void> {
  if (foreignKeys.length === 0) return;
  // the batch, then what the write sees as pending (a transaction's earlier writes), then what
  // the cache knows: without I/O or a promise in a serial writer's usual case; else the reads
  // a batch of a few drafts and no siblings is looked up in its drafts: a serial writer's
  // one-document batch builds no map and leaves nothing in scratch
  const small = !ctx.batch.siblings && ctx.batch.drafts.length <= SMALL_BATCH;
  if (firstUnknown(draft, ctx, foreignKeys, small ? undefined : batchTargets(ctx).inBatch, cache) !== undefined) {
    return checkWithReads(draft, ctx, foreignKeys, cache);
  }
}

const SMALL_BATCH = 4;

/**
 * A target the check knows without reading: written by the batch (`inBatch`, else the drafts of
 * a small batch), pending, then what the reads found (`fetched`) or else the cache. Module
 * functions, not closures per write: V8 keeps a function's optimized code only while some
 * function object of its kind lives (docs/benchmarks.md#code-shared-by-every-stack).
 */
function knownTarget(id: string, ctx: WriteContext, inBatch: Map<string, Doc> | undefined, cache?: TargetCache, fetched?: Map<string, Target>): Target | undefined {
  return (inBatch ? inBatch.get(id) : inDrafts(ctx, id)) || ctx.pending?.(id) || (fetched ? (fetched.has(id) ? fetched.get(id)! : undefined) : cache?.fresh(id));
}

/** batchTargets' `inBatch` answer for a small batch: the last draft of an id wins, as the map's last set does. */
function inDrafts(ctx: WriteContext, id: string): Doc | undefined {
  const { drafts } = ctx.batch;
  const deletesCount = ctx.origin !== 'replication';
  for (let i = drafts.length - 1; i >= 0; i--) if (drafts[i]._id === id && (deletesCount || drafts[i].active !== false)) return drafts[i];
  return undefined;
}

/** The check with the store's answers: one read per class of the batch (fetchTargets), a get for any other id. */
async function checkWithReads(draft: Doc, ctx: WriteContext, foreignKeys: AttributeModel[], cache?: TargetCache): Promise<void> {
  const { inBatch } = batchTargets(ctx);
  const fetched = await fetchTargets(ctx, foreignKeys, cache);
  for (let id = firstUnknown(draft, ctx, foreignKeys, inBatch, cache, fetched); id !== undefined; id = firstUnknown(draft, ctx, foreignKeys, inBatch, cache, fetched)) {
    fetched.set(id, await getTarget(ctx.stack, id));
  }
}

/**
 * Checks the ids the draft's foreign keys introduce, in order, against what knownTarget knows (null: known
 * missing); returns the first id it does not know yet (undefined: all checked), throwing for the
 * first that names no active document of the attribute's target class.
 */
function firstUnknown(draft: Doc, ctx: WriteContext, foreignKeys: AttributeModel[], inBatch: Map<string, Doc> | undefined, cache?: TargetCache, fetched?: Map<string, Target>): string | undefined {
  for (const fk of foreignKeys) {
    const value = draft[fk.name];
    if (typeof value === 'string' && ctx.op !== 'update') {
      // the usual reference: one id, on a create (no arrays built)
      const target = knownTarget(value, ctx, inBatch, cache, fetched);
      if (target === undefined) return value;
      refuseTarget(fk, target, value, fk.name);
      continue;
    }
    const ids = idsOf(value);
    const kept = ctx.op === 'update' ? idsOf(ctx.previous?.[fk.name]) : [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (kept.includes(id)) continue;
      const target = knownTarget(id, ctx, inBatch, cache, fetched);
      if (target === undefined) return id;
      refuseTarget(fk, target, id, Array.isArray(value) ? `${fk.name}[${i}]` : fk.name);
    }
  }
  return undefined;
}

function refuseTarget(fk: AttributeModel, target: Target, id: string, path: string): void {
  const problem = !target
    ? 'does not exist'
    : target.active === false
      ? 'is inactive'
      : target['~class'] !== fk.targetClass
        ? `is a ${target['~class']}, not a ${fk.targetClass}`
        : null;
  if (problem) {
    // a target not here at all may still arrive: stack.ingest holds the referrer for it
    throw VALIDATION_ERRORS.validationForeignKey(`"${path}" names ${JSON.stringify(id)}, which ${problem}.`, {
      path,
      details: { attribute: fk.name, targetClass: fk.targetClass, id, ...(target ? {} : { waitingFor: [id] }) },
    });
  }
}

/**
 * One value of a foreign key checked against the store, outside a write (a defaultValue):
 * without it, Attribute.create saved a default naming a missing document and then failed
 * half-way while stamping it onto the existing documents.
 */
export async function checkForeignKeyValue(stack: Pick<WriteContext['stack'], 'storage'>, fk: AttributeModel, value: unknown): Promise<void> {
  if (fk.type !== 'foreign_key') return;
  const ids = idsOf(value);
  for (let i = 0; i < ids.length; i++) {
    refuseTarget(fk, await getTarget(stack, ids[i]), ids[i], Array.isArray(value) ? `${fk.name}[${i}]` : fk.name);
  }
}

function getTarget(stack: Pick<WriteContext['stack'], 'storage'>, id: string): Promise<Target> {
  return stack.storage.get(id);
}
