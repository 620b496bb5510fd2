import type { StoredResult } from '../contracts/unit-of-work.js';
import { adapterCallable } from './direct-calls.js';
import { KEEP_AT_MOST, lastKept } from './kept-shapes.js';

/** The store's write methods: its public one and the adapter's (pouchdb-core 9's adapter interface). */
interface PouchWrites {
  bulkDocs(docs: never[]): Promise<unknown>;
  _bulkDocs(request: { docs: object[] }, options: { new_edits: boolean }, done: (err: unknown, results?: StoredResult[]) => void): void;
}

/**
 * The public `bulkDocs` of each store opened for direct writes: a leveldb or memory store, both
 * pouchdb-adapter-leveldb-core, whose `_bulkDocs` this file was checked against (noted at open:
 * storage/storage-adapters.ts). A store whose `bulkDocs` is no longer that one — wrapped
 * since by a PouchDB plugin, an instrumentation or a test's spy — is written through its wrapper.
 */
const openedWrites = new WeakMap<object, unknown>();

/** Lets `storeDocs` write to this store directly (Node's leveldb and memory stores, once open). */
export function allowDirectWrites(db: object): void {
  openedWrites.set(db, (db as Partial<PouchWrites>).bulkDocs);
}

/** pouchdb-core's own check of a `_rev` (isValidRev): another revision goes to the public call, which refuses it. */
const VALID_REV = /^\d+-[^-]*$/;

/** The `_` fields a direct write carries: any other (PouchDB refuses most) takes the public call. */
const PLAIN_UNDERSCORE = new Set(['_id', '_rev', '_deleted']);

/**
 * Stores `docs` as new revisions — what `db.bulkDocs(docs)` does — and answers its results.
 *
 * Why not always `db.bulkDocs`: pouchdb-core's public call deep-clones its arguments (every
 * document, every value) and wraps the adapter's `_bulkDocs` in a promise and a callback of its
 * own; for a serial writer's call of one document that was ≈ 6 µs of a write's storage CPU
 * (profiled inside the call on leveldb: `clone`, `isPlainObject`), and serial creates stored
 * this way cost 0.94–0.96× those stored through `bulkDocs` (bench/serial-ab, 58 rounds, memory
 * and leveldb; bulk inserts alike, 0.99–1.01×). On a Node store (leveldb, memory) open and ready
 * (storage/direct-calls.ts), a call whose documents hold only plain values (strings, numbers,
 * booleans, null) and only the `_id`, `_rev` and `_deleted` fields goes to `_bulkDocs` with a
 * copy of each document — the adapter writes `_rev` and `_rev_tree` into what it is given, and
 * with no nested value a shallow copy is the deep clone. Anything else (an attribute holding an
 * object or an array, attachments, a revision PouchDB refuses, a browser store, a store whose
 * `bulkDocs` was wrapped since it opened) takes the public call, so what a document becomes is
 * the same either way. The browser files never load this module (kernel/unit-of-work.ts):
 * IndexedDB adapters keep pouchdb-core's call.
 */
export function storeDocs(db: object, docs: readonly object[]): Promise<StoredResult[]> {
  const pouch = db as PouchWrites;
  const copies = openedWrites.get(db) === pouch.bulkDocs && adapterCallable(db) ? flatCopies(docs) : undefined;
  if (!copies) return pouch.bulkDocs(docs as never[]) as Promise<StoredResult[]>;
  if (copies.length <= KEEP_AT_MOST) lastKept.copies = copies; // their hidden classes outlive the write (kept-shapes.ts)
  return new Promise((resolve, reject) => {
    try {
      pouch._bulkDocs({ docs: copies }, { new_edits: true }, answered.bind(null, copies, resolve, reject));
    } catch (err) {
      reject(err); // as pouchdb-core's call rejects what its adapter throws
    }
  });
}

/** The adapter's answer as pouchdb-core's bulkDocs gives it: each result names its document's id. */
function answered(copies: readonly Record<string, unknown>[], resolve: (results: StoredResult[]) => void, reject: (err: unknown) => void, err: unknown, results?: StoredResult[]): void {
  if (err) return reject(err);
  const list = results!;
  for (let i = 0; i < list.length; i++) (list[i] as { id?: unknown }).id ||= copies[i]._id;
  resolve(list);
}

/**
 * A copy of each document, or undefined when one holds a nested value, a `_` field other than
 * PLAIN_UNDERSCORE or a `_rev` PouchDB refuses. Copied key by key onto a new object, as
 * pouchdb-core's clone does, not spread: a spread copy keeps the draft's own hidden class, and
 * the adapter's code, which every other write hands clone-built documents, then ran slower —
 * serial creates 1.03–1.09× those through `bulkDocs` with spread copies, 0.93–0.97× copied key
 * by key (same process, fresh stores, 30 samples, memory and leveldb).
 */
function flatCopies(docs: readonly object[]): Record<string, unknown>[] | undefined {
  const copies: Record<string, unknown>[] = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i] as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    for (const key in doc) {
      const value = doc[key];
      if ((typeof value === 'object' && value !== null) || (key.charCodeAt(0) === 95 /* _ */ && !PLAIN_UNDERSCORE.has(key))) return undefined;
      copy[key] = value;
    }
    if (copy._rev !== undefined && !(typeof copy._rev === 'string' && VALID_REV.test(copy._rev))) return undefined;
    copies[i] = copy;
  }
  return copies;
}
