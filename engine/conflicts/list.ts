import { isEngineClassName, type ClassModel, type Doc } from '../../contracts/model.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Database } from '../../storage/database.js';
import { rangePages, readRaw, SCAN_PAGE } from '../../storage/raw-reads.js';
import { outsideIds } from '../../storage/class-ids.js';
import { planFor } from '../../kernel/write-plan.js';

/** A document with unresolved conflicting leaves: PouchDB's winner and the losing leaves, read as any read. */
export interface DocConflict {
  id: string;
  className: string;
  /** the winning revision (the one every read answers), through afterRead */
  winner: Doc;
  /** the other leaves that are not deleted, through afterRead, in PouchDB's `_conflicts` order */
  losers: Doc[];
}

/** A stored document with its losing leaves' revisions (`conflicts: true`). */
type StoredWithConflicts = Doc & { _conflicts?: string[] };

/**
 * The documents of a class whose id range holds unresolved conflicts: one page at a time with
 * `conflicts: true` (PouchDB fills `_conflicts` from the revision tree it reads anyway), so
 * memory stays bounded and no document is read twice unless it is in conflict.
 */
export async function* conflictedPages(db: Database, className: string): AsyncGenerator<StoredWithConflicts[]> {
  const conflicted = (doc: StoredWithConflicts | null): doc is StoredWithConflicts => !!doc && !!doc._conflicts?.length && doc['~class'] === className;
  for await (const page of rangePages(db, `${className}-`, SCAN_PAGE, undefined, true)) yield (page as StoredWithConflicts[]).filter(conflicted);
  // the ids given outside the class's range (listed: storage/class-ids.ts), one read each
  const outside: StoredWithConflicts[] = [];
  for (const id of await outsideIds(db, className)) {
    const doc = await readWithConflicts(db, id);
    if (conflicted(doc)) outside.push(doc);
  }
  if (outside.length > 0) yield outside;
}

/** The stored winner with its `_conflicts` (empty when there is none), or null when there is no document. */
export function readWithConflicts(db: Database, id: string): Promise<StoredWithConflicts | null> {
  return readRaw<StoredWithConflicts>(db, id, { conflicts: true });
}

/** The losing leaves' bodies (raw), each at its revision; a leaf gone meanwhile is left out. */
export async function readLosers(db: Database, id: string, revs: readonly string[]): Promise<Doc[]> {
  if (revs.length === 0) return [];
  const found = (await db.get(id, { open_revs: [...revs] })) as unknown as Array<{ ok?: Doc }>;
  return found.flatMap((entry) => (entry.ok && !(entry.ok as { _deleted?: boolean })._deleted ? [entry.ok] : []));
}

/** A conflict as the API answers it: winner and losers through the class's afterRead (decrypted where the key is). */
export async function describeConflict(stack: StackPort, db: Database, model: ClassModel, stored: StoredWithConflicts): Promise<DocConflict | null> {
  const { _conflicts: revs = [], ...winner } = stored;
  if (stack.hooks.hidden.call(winner as Doc, { stack, classModel: model })) return null; // as a read: a hidden document is not listed
  const losers = await readLosers(db, stored._id, revs);
  if (losers.length === 0) return null;
  const read = readerFor(stack, model);
  return { id: stored._id, className: model.name, winner: await read(winner as Doc), losers: await Promise.all(losers.map(read)) };
}

/** Reads a stored body of the class as any read answers it (afterRead: decrypted where the key is here). */
export function readerFor(stack: StackPort, model: ClassModel): (doc: Doc) => Promise<Doc> {
  const afterRead = planFor(stack.hooks, model, 'local').afterRead;
  return (doc) => (afterRead ? afterRead.promise({ ...doc }, { stack, classModel: model }) : Promise.resolve(doc));
}

/** The user classes a listing without a class name walks: engine and meta classes are left out. */
export function userClassNames(names: readonly string[]): string[] {
  return names.filter((name) => !isEngineClassName(name));
}

/** Every unresolved conflict of the classes given, in class then id order. */
export async function listConflicts(stack: StackPort, db: Database, models: readonly ClassModel[]): Promise<DocConflict[]> {
  const out: DocConflict[] = [];
  for (const model of models) {
    for await (const page of conflictedPages(db, model.name)) {
      for (const stored of page) {
        const conflict = await describeConflict(stack, db, model, stored);
        if (conflict) out.push(conflict);
      }
    }
  }
  return out;
}
