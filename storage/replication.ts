import './pouchdb-public.js'; // PouchDB.* in this file's .d.ts, without @types/pouchdb-core
import type { Database } from './database.js';
import { changesInLock, replicatorChanges } from './changes-in-lock.js';

// The CouchDB replication protocol over a stack's store, as the node's `/db` endpoint and the
// sync plugin need it. These are PouchDB's own shapes: they are the protocol.

/** `_all_docs` options, as CouchDB names them. */
export interface ReplicationAllDocsOptions {
  include_docs?: boolean;
  conflicts?: boolean;
  descending?: boolean;
  inclusive_end?: boolean;
  update_seq?: boolean;
  attachments?: boolean;
  limit?: number;
  skip?: number;
  startkey?: string;
  endkey?: string;
  key?: string;
  keys?: string[];
}

/** `_changes` options of a one-shot read (a live feed is `live`). */
export interface ReplicationChangesOptions {
  since: number | string;
  style?: 'main_only' | 'all_docs';
  limit?: number;
  include_docs?: boolean;
  conflicts?: boolean;
  descending?: boolean;
  attachments?: boolean;
  seq_interval?: number;
  doc_ids?: string[];
}

/** `GET /:id` options (one revision); `open_revs` reads go through `openRevs`. */
export interface ReplicationGetOptions {
  rev?: string;
  revs?: boolean;
  revs_info?: boolean;
  conflicts?: boolean;
  latest?: boolean;
  attachments?: boolean;
  deleted_conflicts?: boolean;
  local_seq?: boolean;
}

export interface ReplicationBulkGetOptions {
  docs: Array<{ id: string; rev?: string }>;
  revs?: boolean;
  latest?: boolean;
  attachments?: boolean;
}

/** A stored revision as the protocol carries it (`_revisions`, `_conflicts`… when asked for). */
export type RevisionDoc = {
  _id: string;
  _rev: string;
  _deleted?: boolean;
  _conflicts?: string[];
  _revisions?: { start: number; ids: string[] };
} & Record<string, unknown>;

/** A leaf revision `openRevs` found, or the one it did not. */
export type OpenRevision = { ok: RevisionDoc } | { missing: string };

/** A replication checkpoint (`_local/<id>`). */
export type LocalDoc = RevisionDoc;

/** One line of a target's bulkDocs answer, as PouchDB's replicator reads it. */
export type ReplicationWriteResult =
  | { ok: true; id: string; rev: string }
  | { id: string; error: true | string; name: string; status?: number; reason?: string; message?: string; code?: string };

export interface ReplicationTargetOptions {
  /** stores what the replicator writes into this store: the sync plugin passes `stack.ingest` */
  bulkDocs(docs: unknown[], newEdits: boolean): Promise<ReplicationWriteResult[]>;
}

declare const targetBrand: unique symbol;
/** This store as PouchDB's replicator sees it: hand it to `PouchDB.replicate` / `PouchDB.sync`, nothing else. */
export interface ReplicationTarget {
  readonly [targetBrand]: true;
}

export interface StorageReplication {
  revsDiff(diff: Record<string, string[]>): Promise<PouchDB.Core.RevisionDiffResponse>;
  bulkGet(options: ReplicationBulkGetOptions): Promise<PouchDB.Core.BulkGetResponse<{}>>;
  allDocs(options: ReplicationAllDocsOptions): Promise<PouchDB.Core.AllDocsResponse<{}> | PouchDB.Core.AllDocsWithKeysResponse<{}>>;
  get(id: string, options?: ReplicationGetOptions): Promise<RevisionDoc>;
  /** The leaf revisions asked for (`'all'`: every leaf), each found or missing. */
  openRevs(id: string, revs: 'all' | string[], options?: { revs?: boolean; latest?: boolean; attachments?: boolean }): Promise<OpenRevision[]>;
  changes(options: ReplicationChangesOptions): Promise<PouchDB.Core.ChangesResponse<{}>>;
  /** A live feed from `since` (ids and revisions): `on('change' | 'error')`, `cancel()`. */
  live(since: number | string): PouchDB.Core.Changes<{}>;
  /** `_local/<id>` (a checkpoint); PouchDB's 404 when there is none. */
  getLocal(id: string): Promise<LocalDoc>;
  putLocal(id: string, doc: Record<string, unknown>): Promise<PouchDB.Core.Response>;
  /** Removes `_local/<id>` at `rev` (the stored one when not given). */
  removeLocal(id: string, rev?: string): Promise<PouchDB.Core.Response>;
  /**
   * This store for PouchDB's replicator, except that what the replicator writes goes to
   * `bulkDocs` (the request shapes normalised to a list and `newEdits`) instead of the store.
   */
  target(options: ReplicationTargetOptions): ReplicationTarget;
}

type BulkRequest = { docs: unknown[]; new_edits?: boolean } | unknown[];

export function createReplication(db: Database): StorageReplication {
  const oneShot = (options: ReplicationChangesOptions) => db.changes({ ...options, live: false, return_docs: true });
  return {
    revsDiff: (diff) => db.revsDiff(diff),
    bulkGet: (options) => db.bulkGet(options as PouchDB.Core.BulkGetOptions),
    allDocs: (options) => db.allDocs(options),
    get: async (id, options = {}) => (await db.get(id, options as PouchDB.Core.GetOptions)) as unknown as RevisionDoc,
    openRevs: async (id, revs, options = {}) => (await db.get(id, { ...options, open_revs: revs })) as OpenRevision[],
    // inside the store's write lock: a write landing mid-read can hide a row (changes-in-lock.ts)
    changes: globalThis.docstackBrowserBuild ? oneShot : changesInLock(db, oneShot),
    live: (since) => db.changes({ since, live: true, return_docs: false }),
    getLocal: async (id) => (await db.get(`_local/${id}`)) as unknown as RevisionDoc,
    putLocal: (id, doc) => db.put({ ...doc, _id: `_local/${id}` }),
    removeLocal: async (id, rev) => db.remove({ _id: `_local/${id}`, _rev: rev ?? (await db.get(`_local/${id}`))._rev }),
    target: ({ bulkDocs }) => {
      const target = Object.create(db) as Record<string, unknown>;
      // what the replicator pushes from here is read inside the write lock too (changes-in-lock.ts)
      if (!globalThis.docstackBrowserBuild) target.changes = replicatorChanges(db);
      target.bulkDocs = (request: BulkRequest, options?: { new_edits?: boolean }) => {
        const docs = Array.isArray(request) ? request : request.docs;
        return bulkDocs(docs, (Array.isArray(request) ? options?.new_edits : request.new_edits) ?? true);
      };
      return target as unknown as ReplicationTarget;
    },
  };
}
