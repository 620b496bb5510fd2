import { winningRev } from 'pouchdb-merge';
import type { Doc } from '../contracts/model.js';
import { documentCaches, type DocumentCache, type StoredDone } from './document-caches.js';
import type { DocumentCacheOptions } from './options.js';

/**
 * A verified cache of documents by id for Node's leveldb and memory stores (pouchdb-adapter-
 * leveldb-core), asked by every read by id of the engine (storage/direct-get.ts).
 *
 * Why: a read by id on leveldb-core is two storage reads — the document's metadata (its revision
 * tree), then the winning revision's body. A cached body answers with the first read only: the
 * store's revision tree says which revision wins now, and a revision's body never changes, so
 * the cache answers only when its revision is the winner. Nothing is trusted to invalidate it: a
 * write by another PouchDB object on the same store, a replicated conflict that wins, a deletion
 * — each changes the winner, and the read then goes to the store. Measured (one process, 10,000
 * documents, CPU per read): ≈ 0.56× a raw `get` on leveldb, ≈ 0.64× on memory.
 *
 * What goes in: documents this store object wrote itself in a call of several (a fresh revision:
 * `new_edits` not false — a replicated revision may name one the store already holds with another
 * body), and documents read through it twice; never one with attachments, `_access` or
 * replication fields, nor a deletion. A call of one document (a serial writer's) only refreshes
 * an entry the cache already holds: keeping every serially written document cost each serial
 * insert ≈ 6 % of its CPU (memory store, 3 runs: 1.33–1.35× a raw put against 1.23–1.28×
 * without the cache, 1.26–1.29× with the call counted but nothing kept), and such a document is
 * kept at its second read like any other. Entries keep the JSON text the store keeps (the same
 * values, stringified the same way), so an answer is exactly what the store would answer, and a
 * fresh object each time.
 *
 * A read asked while a write of this object is in flight goes to the store: the adapter queues
 * reads behind the writes asked before them (read-your-writes), and the revision-tree read does
 * not queue.
 */
export const DOCUMENT_CACHE_DEFAULTS: Required<DocumentCacheOptions> = { maxDocuments: 20_000, maxBytes: 8 * 1024 * 1024 };

/** A document larger than this share of maxBytes is not kept (it would evict many small ones). */
const LARGEST_SHARE = 8;

interface Entry {
  rev: string;
  /** the JSON text a store read parses (set at the first hit for a written document) */
  json?: string;
  /** a written document as the adapter was handed it (pouchdb-core's own copy of the write), until its first hit */
  written?: Record<string, unknown>;
  bytes: number;
}

type Callback = (err: unknown, result?: unknown) => void;
interface WriteResult {
  ok?: boolean;
  rev?: string;
  error?: unknown;
}

/** The parts of a leveldb-core PouchDB object the cache relies on (pouchdb-adapter-leveldb-core 9). */
interface LevelCorePouch {
  _bulkDocs(request: { docs: Record<string, unknown>[] }, options: { new_edits?: boolean }, callback: Callback): void;
  _getRevisionTree(id: string, callback: (err: unknown, tree?: unknown) => void): void;
}

export class VerifiedDocumentCache implements DocumentCache {
  readonly #entries = new Map<string, Entry>();
  readonly #limits: Required<DocumentCacheOptions>;
  #bytes = 0;
  /** ids read from the store once and not kept yet (oldest first, at most maxDocuments) */
  readonly #readOnce = new Set<string>();
  /** writes asked of the store and not yet answered */
  #writesInFlight = 0;

  constructor(
    private readonly pouch: LevelCorePouch,
    limits: Required<DocumentCacheOptions>,
  ) {
    this.#limits = limits;
    this.#watchWrites();
  }

  /** its bounds (StorageOptions.documentCache over DOCUMENT_CACHE_DEFAULTS) */
  get limits(): Required<DocumentCacheOptions> {
    return { ...this.#limits };
  }

  /** how many documents and (approximate JSON) bytes it holds */
  get size(): { documents: number; bytes: number } {
    return { documents: this.#entries.size, bytes: this.#bytes };
  }

  clear(): void {
    this.#entries.clear();
    this.#readOnce.clear();
    this.#bytes = 0;
  }

  read(id: string, done: StoredDone, readStore: (id: string, done: StoredDone) => void): void {
    const entry = this.#writesInFlight === 0 ? this.#entries.get(id) : undefined;
    if (!entry) return this.#readThrough(id, done, readStore);
    this.pouch._getRevisionTree(id, (err, tree) => {
      if (err || winningRev({ rev_tree: tree }) !== entry.rev) {
        if (this.#entries.get(id) === entry) this.#delete(id);
        return this.#readThrough(id, done, readStore);
      }
      let doc: Doc;
      try {
        doc = JSON.parse(this.#jsonOf(id, entry)) as Doc;
      } catch (error) {
        return done(error, null);
      }
      if (this.#entries.get(id) === entry) {
        // most recently used last: eviction takes the oldest first
        this.#entries.delete(id);
        this.#entries.set(id, entry);
      }
      done(null, doc);
    });
  }

  /**
   * The JSON text a store read parses, computed once for a written document (at its first hit):
   * its own fields in order, then `_id` and `_rev` — leveldb-core stores the fields (pouchdb-
   * adapter-utils' parseDoc moves the other `_` fields to the metadata) with those two appended,
   * JSON-encoded. Deferred to the first hit so a write pays only for remembering the object.
   */
  #jsonOf(id: string, entry: Entry): string {
    if (entry.json === undefined) {
      const written = entry.written!;
      const body: Record<string, unknown> = {};
      for (const key in written) if (key.charCodeAt(0) !== 95 /* _ */) body[key] = written[key];
      body._id = id;
      body._rev = entry.rev;
      entry.json = JSON.stringify(body);
      entry.written = undefined;
      if (this.#entries.get(id) === entry) this.#bytes += entry.json.length - entry.bytes;
      entry.bytes = entry.json.length;
    }
    return entry.json;
  }

  /**
   * A read the cache cannot answer: the store's. A document read this way is kept the second
   * time it is read (its text copied then): keeping it at the first read would cost every cold
   * read a copy — ≈ 5–10 % of a read — for documents most often read once.
   */
  #readThrough(id: string, done: StoredDone, readStore: (id: string, done: StoredDone) => void): void {
    readStore(id, (err, doc) => {
      if (!err && doc && cacheable(doc)) {
        if (this.#readOnce.delete(id)) {
          const json = JSON.stringify(doc);
          this.#set(id, { rev: doc._rev as string, json, bytes: json.length });
        } else {
          this.#readOnce.add(id);
          if (this.#readOnce.size > this.#limits.maxDocuments) this.#readOnce.delete(this.#readOnce.values().next().value as string);
        }
      }
      done(err, doc);
    });
  }

  /** the adapter's own _bulkDocs, which bulkDocs calls */
  #inner: LevelCorePouch['_bulkDocs'] | undefined;

  /**
   * Remembers what this object's writes stored, and counts the writes in flight: the store's
   * _bulkDocs becomes this object's bulkDocs, bound — not a closure per store: it runs on every
   * write, and V8 keeps a function's optimized code only while some function object of its kind
   * lives, so a closure per store was compiled again for each store opened after a full garbage
   * collection (docs/benchmarks.md#code-shared-by-every-stack).
   */
  #watchWrites(): void {
    this.#inner = this.pouch._bulkDocs;
    this.pouch._bulkDocs = this.bulkDocs.bind(this);
  }

  /** The store's _bulkDocs, watched. */
  bulkDocs(request: { docs: Record<string, unknown>[] }, options: { new_edits?: boolean }, callback: Callback): void {
    // leveldb-core's _bulkDocs only queues the write (its writeLock) and answers it once
    const docs = request.docs;
    this.#writesInFlight++;
    // a bound method, not a closure per call: its optimized code outlives the call (#watchWrites)
    this.#inner!.call(this.pouch, request, options, this.answered.bind(this, docs, options, callback));
  }

  /** A watched write's answer: what it stored is remembered, then the caller answered. */
  answered(docs: Record<string, unknown>[], options: { new_edits?: boolean }, callback: Callback, err: unknown, results?: unknown): void {
    this.#writesInFlight--;
    this.#remember(docs, options, err ? undefined : (results as WriteResult[] | undefined));
    callback(err, results);
  }

  #remember(docs: Record<string, unknown>[], options: { new_edits?: boolean }, results: WriteResult[] | undefined): void {
    // a replicated revision (new_edits false) may name one the store holds with another body
    const fresh = options?.new_edits !== false && results !== undefined;
    // a serial writer's call: only an entry held already is refreshed (or dropped)
    if (docs.length === 1 && !this.#entries.has(docs[0]?._id as string)) return;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i];
      const id = doc?._id;
      if (typeof id !== 'string' || id.charCodeAt(0) === 95 /* _local/, _design/ */) continue;
      const result = results?.[i];
      const bytes = fresh && result?.ok === true && typeof result.rev === 'string' ? writtenBytes(doc) : -1;
      if (bytes >= 0) {
        this.#set(id, { rev: result!.rev!, written: doc, bytes });
      } else if (!results || result?.ok) {
        // a deletion, a replicated revision, attachments: the store answers
        this.#delete(id);
      }
    }
  }

  #set(id: string, entry: Entry): void {
    this.#delete(id);
    if (entry.bytes > this.#limits.maxBytes / LARGEST_SHARE) return;
    this.#entries.set(id, entry);
    this.#bytes += entry.bytes;
    if (this.#entries.size <= this.#limits.maxDocuments && this.#bytes <= this.#limits.maxBytes) return;
    const oldestFirst = this.#entries.keys();
    while (this.#entries.size > this.#limits.maxDocuments || this.#bytes > this.#limits.maxBytes) this.#delete(oldestFirst.next().value as string);
  }

  #delete(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    this.#bytes -= entry.bytes;
  }
}

/** Gives a leveldb-core store its document cache (storage-adapters.ts, at open), unless turned off. */
export function attachDocumentCache(db: object, options: { documentCache?: DocumentCacheOptions | false }): void {
  if (options.documentCache === false) return;
  // a bound left out, or given as undefined, keeps its default (a spread would take the undefined)
  const given = options.documentCache ?? {};
  const limits: Required<DocumentCacheOptions> = {
    maxDocuments: given.maxDocuments ?? DOCUMENT_CACHE_DEFAULTS.maxDocuments,
    maxBytes: given.maxBytes ?? DOCUMENT_CACHE_DEFAULTS.maxBytes,
  };
  if (!(limits.maxDocuments > 0 && limits.maxBytes > 0)) return;
  const pouch = db as Partial<LevelCorePouch>;
  if (typeof pouch._bulkDocs !== 'function' || typeof pouch._getRevisionTree !== 'function') return;
  documentCaches.set(db, new VerifiedDocumentCache(pouch as LevelCorePouch, limits));
}

/** A document read from the store is kept unless it holds attachments (its stubs are the read's, not the store's). */
function cacheable(doc: Record<string, unknown>): boolean {
  return doc._attachments === undefined;
}

/**
 * About the length of the text the store keeps for a written document (kept within maxBytes
 * without stringifying each write), or -1 when the store keeps more than its fields, `_id` and
 * `_rev`: a deletion, or the `_` fields leveldb-core keeps in the body (pouchdb-adapter-utils'
 * dataWords: attachments, `_access`, replication state). PouchDB refuses any other `_` field.
 */
function writtenBytes(doc: Record<string, unknown>): number {
  let bytes = 2;
  for (const key in doc) {
    if (key.charCodeAt(0) === 95 /* _ */) {
      if (key === '_deleted' ? doc._deleted : !METADATA_FIELDS.has(key)) return -1;
    } else bytes += key.length + 4 + approximateBytes(doc[key]);
  }
  return bytes;
}

/** `_` fields a write may carry that leveldb-core keeps in the metadata, not the body. */
const METADATA_FIELDS = new Set(['_id', '_rev', '_rev_tree', '_revisions', '_revs_info', '_conflicts', '_deleted_conflicts', '_local_seq', '_removed']);

/** About the length of a value's JSON text. */
function approximateBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'boolean':
      return 8;
    case 'object': {
      if (value === null) return 4;
      let bytes = 2;
      if (Array.isArray(value)) for (const item of value) bytes += approximateBytes(item) + 1;
      else for (const key in value) bytes += key.length + 4 + approximateBytes((value as Record<string, unknown>)[key]);
      return bytes;
    }
    default:
      return 0;
  }
}
