import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { WriteOp } from '../../contracts/hooks.js';
import type { ClassModel, Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import type { WriteLock } from '../../storage/write-lock.js';
import { nowIso, requireObject, updateDraft } from '../../kernel/drafts.js';
import { extrasOf, type WriteRequest } from '../../kernel/pipeline.js';
import type { WriteOptions } from '../../kernel/stack.js';
import type { Clock } from '../../contracts/clock.js';
import { readWithConflicts } from './list.js';

/** The `conflict:resolved` event of a stack: one per resolving revision written. */
export interface ConflictResolvedEvent {
  id: string;
  className: string;
  /** how it was resolved: `'manual'` for stack.resolveConflict (class policies come with #28's next part) */
  policy: 'manual';
  /** the resolving revision, now the only leaf */
  rev: string;
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

function oneAtATime<T>(db: Database, section: () => Promise<T>): Promise<T> {
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
  const { _conflicts: losingRevs = [], ...previous } = stored;
  if (losingRevs.length === 0) {
    throw KERNEL_ERRORS.conflictNone(`"${id}" has no conflicting revision to resolve (resolved already, or never in conflict).`, { details: { id } });
  }
  const model = await deps.requireClass(previous['~class']);
  for (const field of ['_id', '~class'] as const) {
    if (Object.hasOwn(chosen, field) && chosen[field] !== previous[field]) {
      throw KERNEL_ERRORS.docProtectedField(`"${field}" of a resolving body must be the document's own.`, { path: field });
    }
  }
  // exactly the body's attributes: the winner's that the body leaves out are cleared (null)
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(previous)) if (isAttribute(key) && !Object.hasOwn(chosen, key)) changes[key] = null;
  for (const [key, value] of Object.entries(chosen)) if (isAttribute(key)) changes[key] = value;
  const draft = updateDraft(previous as Doc, changes, nowIso(deps.clock), deps.systemFields);
  // an edit/delete conflict: the body says whether the document lives (`active`), else the winner's state stays
  if (typeof chosen.active === 'boolean') draft.active = chosen.active;
  const op: WriteOp = draft.active === false && previous.active !== false ? 'delete' : 'update';
  const [resolved] = await deps.write([{ op, draft, previous: previous as Doc, classModel: model }], { ...extrasOf(options), origin: 'local' });
  await deps.lock(async () => {
    const results = await deps.db.bulkDocs(losingRevs.map((rev) => ({ _id: id, _rev: rev, _deleted: true })) as never[]);
    // a leaf another writer removed meanwhile is gone either way; any other failure is reported
    const failed = results.find((r) => 'error' in r && r.error && (r as { status?: number }).status !== 409);
    if (failed) throw KERNEL_ERRORS.docConflict(`The losing revisions of "${id}" could not all be removed; list its conflicts again.`, { details: { id } });
  });
  deps.emit('conflict:resolved', { id, className: model.name, policy: 'manual', rev: resolved._rev! });
  return resolved;
}
