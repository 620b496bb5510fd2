import type { Database } from './database.js';
import { directFits } from './direct-get.js';

/** One document's answer of a bulkDocs call (PouchDB's shape). */
export interface BulkAnswer {
  ok?: boolean;
  id?: string;
  rev?: string;
  error?: string | boolean;
  status?: number;
  name?: string;
  reason?: string;
  message?: string;
}

interface BulkInternals {
  _bulkDocs?(req: { docs: object[] }, opts: { new_edits: boolean }, done: (err: unknown, results?: BulkAnswer[]) => void): void;
}

const VALID_REV = /^\d+-[^-]*$/; // pouchdb-core's own test

/**
 * Stores the engine's own documents (new edits) in one bulkDocs call.
 *
 * Why not `db.bulkDocs` as such: pouchdb-core's public wrapper deep-clones its arguments — every
 * attribute of every document — so the adapter's `parseDoc` (which sets `_rev`, `_rev_tree`
 * on what it is given) cannot touch the caller's objects. The engine's documents are copies it
 * made for this write; one shallow copy each keeps them as they were (a write that fails and is
 * tried again still holds its own `_rev`), for a fraction of the clone. On a local adapter this
 * does what the wrapper does for such a call — a plain object per document, a valid `_rev`, new
 * edits, the ids of refused documents in the answer — and hands the copies to the adapter's
 * `_bulkDocs`. A document with attachments (pouchdb-core reshapes their stubs), anything else
 * unusual, or a store not ready, closed, remote or logging its calls takes the public
 * `bulkDocs`: the same answers, the same revisions (they hash the body).
 */
export function storeDocs(db: Database, docs: readonly object[]): Promise<BulkAnswer[]> {
  const pouch = db as unknown as BulkInternals;
  if (!directFits(db) || typeof pouch._bulkDocs !== 'function' || !docs.every(isPlainDoc)) {
    return db.bulkDocs(docs as never[]) as Promise<BulkAnswer[]>;
  }
  const copies = docs.map((doc) => ({ ...doc }) as { _id?: string });
  const ids = copies.map((doc) => doc._id);
  return new Promise((resolve, reject) => {
    try {
      pouch._bulkDocs!({ docs: copies }, { new_edits: true }, (err, results) => {
        if (err) return reject(err);
        // as pouchdb-core answers a local store: each refused document named by its id
        for (let i = 0; i < results!.length; i++) results![i].id = results![i].id || ids[i];
        resolve(results!);
      });
    } catch (err) {
      reject(err);
    }
  });
}

/** A document the direct call takes: a plain object with no attachments and, if any, a valid `_rev`. */
function isPlainDoc(doc: object): boolean {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return false;
  const { _rev: rev, _attachments: attachments } = doc as { _rev?: unknown; _attachments?: unknown };
  return attachments === undefined && (rev === undefined || (typeof rev === 'string' && VALID_REV.test(rev)));
}
