import type { Doc } from '../contracts/model.js';
import type { Database } from './database.js';
import { adapterCallable } from './direct-calls.js';
import { documentCaches, type StoredDone } from './document-caches.js';
import { boundDatabase } from './raw-database.js';

/** The adapter's read a direct read calls (pouchdb-core 9's adapter interface). */
interface PouchInternals {
  adapter?: string;
  _get(id: string, opts: object, done: (err: unknown, result?: { doc: Doc }) => void): void;
}

/** Adapters whose `_get` answers the winning revision as pouchdb-core's `get` expects it. */
const LOCAL_ADAPTERS = new Set(['memory', 'leveldb', 'idb', 'indexeddb']);

/**
 * The stored document (raw) by id, or null when it is missing or deleted — answered by callback.
 *
 * Why not `db.get`: every read by id of the engine (a lookup, an update's previous document)
 * pays pouchdb-core's public wrapper — a deep clone of its arguments, a promise, and a callback
 * that a caller wanting a promise of its own wraps once more. On a local adapter, this asks the
 * adapter's `_get` directly and does what `get` does for a plain read (no `rev`, no options):
 * the adapter already answers 404 for a missing or deleted winner; attachments come as stubs.
 * A store not ready, closed, logging its calls (`debug` listeners), a remote one, or a `_local`
 * id takes the public `get`, so nothing is lost where the direct call does not fit (the adapters
 * listed in LOCAL_ADAPTERS all have pouchdb-core's `_get`). Writes take the same shortcut on
 * Node's stores (storage/direct-write.ts). On Node's leveldb and memory stores the
 * store's document cache answers first when the store confirms its revision still wins
 * (storage/document-cache.ts).
 */
export function getStored(db: Database, id: string, done: (err: unknown, doc: Doc | null) => void): void {
  const local = LOCAL_ADAPTERS.has((db as unknown as PouchInternals).adapter ?? '');
  if (typeof id !== 'string' || id.startsWith('_local/') || !local || !adapterCallable(db)) {
    db.get(id).then(
      (doc) => done(null, doc as unknown as Doc),
      (err: unknown) => done(isMissing(err) ? null : err, null),
    );
    return;
  }
  const cache = documentCaches.get(db);
  if (cache) cache.read(id, done, (missed, answer) => directGet(db, missed, answer));
  else directGet(db, id, done);
}

/** The adapter's own read (`_get`): a leveldb or memory store's document cache asks it on a miss. */
function directGet(db: Database, id: string, done: StoredDone): void {
  try {
    (db as unknown as PouchInternals)._get(id, {}, (err, result) => (err ? done(isMissing(err) ? null : err, null) : done(null, markStubs(result!.doc))));
  } catch (err) {
    done(err, null);
  }
}

/** getStored as a promise (one promise for the read: its caller's). */
export function readStored<T = Doc>(db: Database, id: string): Promise<T | null> {
  return new Promise((resolve, reject) => getStored(db, id, (err, doc) => (err ? reject(err) : resolve(doc as T | null))));
}

/**
 * getStored over a stack's storage facade (its bound store); a facade this kernel did not bind
 * (a test's stand-in) answers through its own `get`.
 */
export function getStoredVia(storage: { get(id: string): Promise<object | null> }, id: string, done: (err: unknown, doc: Doc | null) => void): void {
  const db = boundDatabase(storage);
  if (db) getStored(db, id, done);
  else storage.get(id).then((doc) => done(null, doc as Doc | null), (err: unknown) => done(err, null));
}

/** As pouchdb-core's get without `attachments`: each attachment a stub. */
function markStubs(doc: Doc): Doc {
  const attachments = doc._attachments as Record<string, { stub?: boolean }> | undefined;
  for (const name in attachments) attachments[name].stub = true;
  return doc;
}

function isMissing(err: unknown): boolean {
  return (err as { status?: number } | null)?.status === 404;
}

/** A read's refusal as a read answers it: null for a missing document (404), else thrown again. */
export function nullWhenMissing(err: unknown): null {
  if (isMissing(err)) return null;
  throw err;
}
