import type { Doc } from '../contracts/model.js';
import type { Database } from './database.js';
import { rangePages, readRaw, SCAN_PAGE } from './raw-reads.js';

/*
 * A class's documents are the id range `<Class>-…` plus the documents whose id a caller (or a
 * peer) chose outside it (SPEC: "unless an id is passed to createDoc"). Those ids are listed per
 * class in one `_local` document beside the class counter, `_local/~ids/<Class>`. It is written
 * ahead of the document (its own storage call, only for a write that has such an id): the list
 * is a superset of the class's out-of-range documents, after a crash too. An id listed whose
 * document is missing, deleted or of another class is skipped by the readers below, so a write
 * that failed after the list was written costs nothing but a stale entry (a purge takes it off).
 * Like the counter it does not replicate: each peer lists what it stores.
 */

const PREFIX = '_local/~ids/';

interface ClassIdsDoc {
  _id: string;
  _rev?: string;
  /** sorted, unique */
  ids: string[];
}

export const classIdsDocId = (className: string): string => `${PREFIX}${className}`;

/** Is `id` inside the class's id range (`<Class>-…`, what a range scan of the class reads)? */
export function inClassRange(className: string, id: string): boolean {
  return id.length > className.length && id.charCodeAt(className.length) === 45 /* - */ && id.startsWith(className);
}

/** The class's out-of-range ids, sorted (the list may name documents gone since). */
export async function outsideIds(db: Database, className: string): Promise<string[]> {
  return (await readRaw<ClassIdsDoc>(db, classIdsDocId(className)))?.ids ?? [];
}

/**
 * Adds ids to their classes' lists (a map class → ids), one read and one write per class; a write
 * another writer raced (409) is read and merged again. Call it before the documents are stored.
 */
export async function registerOutsideIds(db: Database, byClass: ReadonlyMap<string, readonly string[]>): Promise<void> {
  await editLists(db, byClass, (listed, ids) => {
    const next = new Set(listed);
    for (const id of ids) next.add(id);
    return next.size === listed.length ? null : [...next].sort(byId);
  });
}

/** Takes ids off their classes' lists (documents purged). */
export async function unregisterOutsideIds(db: Database, byClass: ReadonlyMap<string, readonly string[]>): Promise<void> {
  await editLists(db, byClass, (listed, ids) => {
    const gone = new Set(ids);
    const next = listed.filter((id) => !gone.has(id));
    return next.length === listed.length ? null : next;
  });
}

async function editLists(db: Database, byClass: ReadonlyMap<string, readonly string[]>, edit: (listed: string[], ids: readonly string[]) => string[] | null): Promise<void> {
  for (const [className, ids] of byClass) {
    if (ids.length === 0) continue;
    for (let attempt = 0; ; attempt++) {
      const stored = await readRaw<ClassIdsDoc>(db, classIdsDocId(className));
      const next = edit(stored?.ids ?? [], ids);
      if (next === null) break;
      try {
        await db.put({ _id: classIdsDocId(className), ...(stored?._rev ? { _rev: stored._rev } : {}), ids: next } as never);
        break;
      } catch (err) {
        if ((err as { status?: number }).status !== 409 || attempt >= 10) throw err;
      }
    }
  }
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The stored documents of these ids that belong to the class (missing, deleted and others' left out). */
async function readOfClass(db: Database, className: string, ids: readonly string[], conflicts: boolean): Promise<Doc[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.allDocs({ keys: [...ids], include_docs: true, ...(conflicts ? { conflicts } : {}) });
  return rows.flatMap((row) => {
    const doc = 'doc' in row ? (row.doc as unknown as Doc | null | undefined) : undefined;
    return doc && doc['~class'] === className ? [doc] : [];
  });
}

/**
 * The stored documents of a class, raw and in id order, one page at a time: its id range and its
 * out-of-range ids merged (a page may then hold a few more than `pageSize`). `after`: a cursor,
 * the last id a previous page ended with. Writes between pages are fine. Range documents are
 * yielded as stored (a caller checks `~class`, as for any range); listed ones are of the class.
 */
export async function* classPages(db: Database, className: string, pageSize = SCAN_PAGE, after?: string, conflicts = false): AsyncGenerator<Doc[]> {
  const prefix = `${className}-`;
  let outside = await outsideIds(db, className);
  if (after !== undefined) outside = outside.filter((id) => id > after);
  const takeUpTo = async (last: string | undefined): Promise<Doc[]> => {
    const cut = last === undefined ? outside.length : outside.findIndex((id) => id > last);
    const ids = outside.splice(0, cut < 0 ? outside.length : cut);
    const docs: Doc[] = [];
    for (let i = 0; i < ids.length; i += pageSize) docs.push(...(await readOfClass(db, className, ids.slice(i, i + pageSize), conflicts)));
    return docs;
  };
  if (after === undefined || after < `${prefix}\uffff`) {
    for await (const page of rangePages(db, prefix, pageSize, after, conflicts)) {
      if (outside.length === 0 || page.length === 0) {
        if (page.length > 0) yield page;
        continue;
      }
      const merged = [...page, ...(await takeUpTo(page[page.length - 1]._id))].sort((a, b) => byId(a._id, b._id));
      yield merged;
    }
  }
  while (outside.length > 0) {
    const docs = await readOfClass(db, className, outside.splice(0, pageSize), conflicts);
    if (docs.length > 0) yield docs;
  }
}

/** Does the class have a stored document (active or not)? One range row, else its listed ids. */
export async function hasClassDocs(db: Database, className: string): Promise<boolean> {
  const prefix = `${className}-`;
  const { rows } = await db.allDocs({ startkey: prefix, endkey: `${prefix}\uffff`, limit: 1 });
  if (rows.length > 0) return true;
  const outside = await outsideIds(db, className);
  for (let i = 0; i < outside.length; i += SCAN_PAGE) {
    if ((await readOfClass(db, className, outside.slice(i, i + SCAN_PAGE), false)).length > 0) return true;
  }
  return false;
}
