import type { Doc } from '../contracts/model.js';
import type { Database } from './database.js';
import { nullWhenMissing, readStored } from './direct-get.js';

export const SCAN_PAGE = 500;

/**
 * The stored documents whose ids start with `prefix` (a class, a domain's relations), raw and
 * in id order, one page at a time: memory stays bounded, a caller that has enough stops the
 * scan, and a caller may write between pages (the next page starts after the last id read).
 */
/** `conflicts`: each document also carries its losing leaves' revisions (`_conflicts`), as PouchDB reads them anyway. */
export async function* rangePages(db: Database, prefix: string, pageSize = SCAN_PAGE, after?: string, conflicts = false): AsyncGenerator<Doc[]> {
  let startkey = after !== undefined && after > prefix ? after : prefix;
  let skip = 0;
  for (;;) {
    const page = await db.allDocs({ startkey, endkey: `${prefix}\uffff`, include_docs: true, limit: pageSize, skip, ...(conflicts ? { conflicts } : {}) });
    if (page.rows.length === 0) return;
    // a cursor id is excluded (it may be a stored document, or a deleted one's id)
    yield page.rows.filter((row) => row.id !== after).map((row) => row.doc as unknown as Doc).filter(Boolean);
    if (page.rows.length < pageSize) return;
    startkey = page.rows[page.rows.length - 1].id;
    skip = 1;
  }
}

/** The stored document (raw: no afterRead), or null when there is none: one promise (storage/direct-get.ts). */
export function readRaw<T = Doc>(db: Database, id: string, options: { conflicts?: boolean } = {}): Promise<T | null> {
  if (!options.conflicts) return readStored<T>(db, id);
  return (db.get(id, options) as unknown as Promise<T>).catch(nullWhenMissing);
}
