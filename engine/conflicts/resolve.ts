import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { WriteOp, WriteOrigin } from '../../contracts/hooks.js';
import type { ClassModel, Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import type { WriteLock } from '../../storage/write-lock.js';
import { nowIso, requireObject, updateDraft } from '../../kernel/drafts.js';
import { extrasOf, type WriteRequest } from '../../kernel/pipeline.js';
import type { WriteOptions } from '../../kernel/stack.js';
import type { Clock } from '../../contracts/clock.js';
import { readWithConflicts } from './list.js';

/** The `conflict:resolved` event of a stack: one per resolution. */
export interface ConflictResolvedEvent {
  id: string;
  className: string;
  /** how it was resolved: `'manual'` for stack.resolveConflict, else the class's policy ('winner', 'latest', 'merge', a handler's name) */
  policy: string;
  /** the revision the document now has (the resolving one, or the winner kept as it was), its only leaf */
  rev: string;
  /** the leaves removed: each losing version, gone from every device the resolution reaches */
  removed: string[];
}

export interface ResolveDeps {
  db: Database;
  lock: WriteLock;
  clock: Clock;
  systemFields: ReadonlySet<string>;
  requireClass(name: string): Promise<ClassModel>;
  write(requests: WriteRequest[], options: WriteOptions): Promise<Doc[]>;
  emit(event: 'conflict:resolved', payload: ConflictResolvedEvent): void;
}

/** What one resolution writes: the winner it builds on, the leaves it removes, the body it stores. */
export interface Resolution {
  model: ClassModel;
  /** the stored winner, without `_conflicts` */
  winner: Doc;
  losingRevs: readonly string[];
  /** the attributes the document gets (exactly these), and `active` when it decides it; null keeps the winner as it is */
  body: Record<string, unknown> | null;
  policy: string;
  origin: WriteOrigin;
  /** the resolving revision's `~updateTimestamp` (a policy's is the same on every device); now by default */
  timestamp?: string;
  options?: WriteOptions;
}

/** A user attribute: what a resolving body chooses (system `_`/`~` fields and `active` stay the engine's). */
const isAttribute = (key: string): boolean => !key.startsWith('_') && !key.startsWith('~') && key !== 'active';

/**
 * Resolves a document's conflict with the caller's chosen or merged body: one revision on top of
 * the current winner (through the pipeline: validation, hooks, encryption), whose attributes are
 * exactly the body's, then each losing leaf deleted (`_deleted` children of those leaves, one
 * bulkDocs call inside the store's write lock). The write comes first: a body the pipeline refuses
 * leaves every leaf as it was. Were the process to stop between the two, the document stays
 * listed (its winner already the resolution) and resolving it again finishes the job.
 */
export function resolveConflict(deps: ResolveDeps, id: string, body: unknown, options: WriteOptions = {}): Promise<Doc> {
  return oneAtATime(deps.db, () => resolveNow(deps, id, body, options));
}

/** Resolutions of one store, in turn: the second of two concurrent ones reads the first's result (DS_CONFLICT_NONE), never a stale winner. */
const resolving = new WeakMap<Database, Promise<unknown>>();

export function oneAtATime<T>(db: Database, section: () => Promise<T>): Promise<T> {
  const run = (resolving.get(db) ?? Promise.resolve()).then(section, section);
  resolving.set(db, run.catch(() => undefined));
  return run;
}

async function resolveNow(deps: ResolveDeps, id: string, body: unknown, options: WriteOptions): Promise<Doc> {
  const chosen = requireObject(body, 'The resolving body');
  const stored = typeof id === 'string' && id !== '' ? await readWithConflicts(deps.db, id) : null;
  if (!stored || typeof stored['~class'] !== 'string') {
    throw KERNEL_ERRORS.docNotFound(`There is no document with the id ${JSON.stringify(id)}.`, { details: { id } });
  }
  const { _conflicts: losingRevs = [], ...winner } = stored;
  if (losingRevs.length === 0) {
    throw KERNEL_ERRORS.conflictNone(`"${id}" has no conflicting revision to resolve (resolved already, or never in conflict).`, { details: { id } });
  }
  const model = await deps.requireClass(winner['~class']);
  for (const field of ['_id', '~class'] as const) {
    if (Object.hasOwn(chosen, field) && chosen[field] !== winner[field]) {
      throw KERNEL_ERRORS.docProtectedField(`"${field}" of a resolving body must be the document's own.`, { path: field });
    }
  }
  return applyResolution(deps, { model, winner: winner as Doc, losingRevs, body: chosen, policy: 'manual', origin: 'local', options });
}

/**
 * Writes a resolution: the body as one revision on top of the winner (unless it keeps the winner
 * as it is), then the losing leaves deleted, then `conflict:resolved`. Deterministic for a
 * policy: the same leaves give every device the same body and timestamp, so the same revision
 * ids (PouchDB's revisions hash the body and its parent) — two devices resolving one conflict
 * at once make one resolution, not a new conflict.
 */
export async function applyResolution(deps: ResolveDeps, resolution: Resolution): Promise<Doc> {
  const { model, winner, losingRevs, body } = resolution;
  let resolved = winner;
  if (body) {
    // exactly the body's attributes: the winner's that the body leaves out are cleared (null)
    const changes: Record<string, unknown> = {};
    for (const key of Object.keys(winner)) if (isAttribute(key) && !Object.hasOwn(body, key)) changes[key] = null;
    for (const [key, value] of Object.entries(body)) if (isAttribute(key)) changes[key] = value;
    const draft = updateDraft(winner, changes, resolution.timestamp ?? nowIso(deps.clock), deps.systemFields);
    // an edit/delete conflict: the body says whether the document lives (`active`), else the winner's state stays
    if (typeof body.active === 'boolean') draft.active = body.active;
    const op: WriteOp = draft.active === false && winner.active !== false ? 'delete' : 'update';
    [resolved] = await deps.write([{ op, draft, previous: winner, classModel: model }], { ...extrasOf(resolution.options ?? {}), origin: resolution.origin });
  }
  await deps.lock(async () => {
    const results = await deps.db.bulkDocs(losingRevs.map((rev) => ({ _id: winner._id, _rev: rev, _deleted: true })) as never[]);
    // a leaf another writer removed meanwhile is gone either way; any other failure is reported
    const failed = results.find((r) => 'error' in r && r.error && (r as { status?: number }).status !== 409);
    if (failed) throw KERNEL_ERRORS.docConflict(`The losing revisions of "${winner._id}" could not all be removed; list its conflicts again.`, { details: { id: winner._id } });
  });
  deps.emit('conflict:resolved', { id: winner._id, className: model.name, policy: resolution.policy, rev: resolved._rev!, removed: [...losingRevs] });
  return resolved;
}
