import PouchDB from 'pouchdb-core';
import { authenticatedFetch, type Fetch, type SyncAuth, type SyncSessions } from './auth.js';
import { networkError } from './errors.js';
import type { MaybeHeldLine } from './status.js';
import { DocstackError } from '../../index.js';

/** What the sync learns from the remote's answers, beside what PouchDB's replicator reports. */
export interface RemoteObserver {
  /** the remote's `_bulk_docs` answer to a push: a line may carry `held` (the node keeps it aside) */
  bulkDocs(lines: MaybeHeldLine[]): void;
  /** when true, the ids the remote's `_changes` answers list are handed to `listed` */
  wantsChanges(): boolean;
  /** the documents (and revisions) the remote's feed lists: stored there (a document it held is applied) */
  listed(rows: Array<{ id: string; revs: string[] }>): void;
}

type PouchStatic = typeof PouchDB & { fetch: Fetch };

/**
 * The remote database for PouchDB's replicator, made sturdy:
 * - every request goes through the session (./auth.ts) and a fetch that turns a failure to get
 *   an answer into DS_SYNC_NETWORK (the instances are kept in `thrown`, see toSyncError);
 * - `info()` never rejects: PouchDB 9's replicator calls `src.info()` after each batch without
 *   a catch (pouchdb-replication finishBatch, for its progress counter), so a node going away
 *   mid-pull ended the process with an unhandled rejection. On failure it answers an empty
 *   info; the request after it fails and the replicator handles that one (retry or error).
 */
export function openRemote(remote: string, auth: SyncAuth | undefined, sessions: SyncSessions, observer: RemoteObserver): { db: PouchDB.Database; thrown: DocstackError[]; fetch: Fetch } {
  const thrown: DocstackError[] = [];
  const remember = (err: DocstackError) => {
    thrown.push(err);
    if (thrown.length > 20) thrown.shift();
    return err;
  };
  const base: Fetch = async (url, init) => {
    try {
      return await (PouchDB as PouchStatic).fetch(url, init);
    } catch (err) {
      throw remember(networkError(String(url), err));
    }
  };
  const authed = authenticatedFetch(remote, auth, base, sessions);
  const observed: Fetch = async (url, init) => {
    let res: Response;
    try {
      res = await authed(url, init);
    } catch (err) {
      throw err instanceof DocstackError ? remember(err) : remember(networkError(String(url), err));
    }
    const path = typeof url === 'string' ? url.split('?')[0] : '';
    const bulk = path.endsWith('/_bulk_docs') && init?.method === 'POST';
    const feed = path.endsWith('/_changes') && observer.wantsChanges();
    if (!res.ok || (!bulk && !feed)) return res;
    // read here, handed back as a new Response with the same body: PouchDB reads it as before
    const text = await res.text();
    try {
      const body = JSON.parse(text) as unknown;
      if (bulk && Array.isArray(body)) observer.bulkDocs(body as MaybeHeldLine[]);
      const results = (body as { results?: unknown })?.results;
      if (feed && Array.isArray(results)) observer.listed(results.map(listedRow));
    } catch {
      // not JSON: PouchDB reports it; the status stays as it was
    }
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const db = new PouchDB(remote, { fetch: observed, skip_setup: true } as never);
  const info = db.info.bind(db) as (...args: unknown[]) => Promise<PouchDB.Core.DatabaseInfo>;
  (db as unknown as { info: (...args: unknown[]) => unknown }).info = (...args: unknown[]) =>
    args.length > 0 ? info(...args) : info().catch(() => ({ db_name: db.name, doc_count: 0, update_seq: 0 }));
  return { db, thrown, fetch: observed };
}

/** A `_changes` row as `{ id, revs }` (its leaf revisions, as the feed lists them). */
function listedRow(row: unknown): { id: string; revs: string[] } {
  const r = row as { id?: unknown; changes?: Array<{ rev?: unknown }> };
  return { id: String(r?.id), revs: Array.isArray(r?.changes) ? r.changes.map((c) => String(c?.rev)) : [] };
}
