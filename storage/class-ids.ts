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
  return id.startsWith(`${className}-`);
}

/** The class's out-of-range ids, sorted (the list may name documents gone since). */
export async function outsideIds(db: Database, className: string): Promise<string[]> {
  return (await readRaw<ClassIdsDoc>(db, classIdsDocId(className)))?.ids ?? [];
}

/**
 * Adds ids to their classes' lists (`add`), or takes them off (documents purged): a map class →
 * ids, one read and one write per class that changes; a write another writer raced (409) is read
 * and merged again. Ids are added before their documents are stored.
 */
export async function editOutsideIds(db: Database, byClass: ReadonlyMap<string, readonly string[]>, add: boolean): Promise<void> {
  for (const [className, ids] of byClass) {
    const _id = classIdsDocId(className);
    for (let attempt = 0; ; attempt++) {
      const stored = await readRaw<ClassIdsDoc>(db, _id);
      const listed = stored?.ids ?? [];
      // ids sort by code unit, as `<` compares them (and allDocs orders ASCII ids)
      const next = add ? [...new Set([...listed, ...ids])].sort() : listed.filter((id) => !ids.includes(id));
      if (next.length === listed.length) break; // nothing to add or take off
      try {
        await db.put({ ...stored, _id, ids: next } as never); // at the stored _rev: a racing writer is a 409
        break;
      } catch (err) {
        if ((err as { status?: number }).status !== 409 || attempt >= 10) throw err;
      }
    }
  }
}

/** The stored documents of these ids that belong to the class (missing, deleted and others' left out). */
async function readOfClass(db: Database, className: string, ids: readonly string[]): Promise<Doc[]> {
  const { rows } = await db.allDocs({ keys: [...ids], include_docs: true });
  return rows.map((row) => (row as { doc?: Doc }).doc!).filter((doc) => doc?.['~class'] === className);
}

/**
 * The stored documents of a class, raw and in id order, one page at a time: its id range and its
 * out-of-range ids merged (a page then holds the listed ones that sort before its last id too).
 * `after`: a cursor, the last id a previous page ended with. Writes between pages are fine. Range
 * documents are yielded as stored (a caller checks `~class`, as for any range); listed ones are of
 * the class. No empty page is yielded after the range's.
 */
export async function* classPages(db: Database, className: string, pageSize = SCAN_PAGE, after?: string): AsyncGenerator<Doc[]> {
  const prefix = `${className}-`;
  const outside = (await outsideIds(db, className)).filter((id) => after === undefined || id > after);
  if (after === undefined || after < `${prefix}\uffff`) {
    for await (const page of rangePages(db, prefix, pageSize, after)) {
      const last = page[page.length - 1]?._id;
      const before = last === undefined ? 0 : outside.filter((id) => id < last).length; // sorted: the first ones
      yield before === 0 ? page : [...page, ...(await readOfClass(db, className, outside.splice(0, before)))].sort((a, b) => (a._id < b._id ? -1 : 1));
    }
  }
  for (let i = 0; i < outside.length; i += pageSize) {
    const docs = await readOfClass(db, className, outside.slice(i, i + pageSize));
    if (docs.length > 0) yield docs;
  }
}
