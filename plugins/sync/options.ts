import type { SyncAuth } from './auth.js';

/** What `stack.sync` is given (docs/replication.md#stacksync-pluginssync). */
export interface SyncOptions {
  /** the remote database, e.g. `http://127.0.0.1:5000/db/docstack` (any CouchDB-compatible endpoint) */
  remote: string;
  auth?: SyncAuth;
  /** keep replicating as changes happen (default false: one round both ways, then complete) */
  live?: boolean;
  /** live only: reconnect after a network error with back-off (default true when live) */
  retry?: boolean;
  /** documents per batch (PouchDB's batch_size, default 100) */
  batchSize?: number;
  /**
   * live with retry: the longest wait between reconnection attempts, in ms. The wait starts
   * under a second and doubles up to this (default PouchDB's own back-off, up to 10 minutes).
   */
  maxRetryDelay?: number;
  /**
   * Only documents of these classes (by `~class`), with the classes' own class documents
   * (docs/replication.md#filtered-sync). Without it the whole remote database syncs.
   */
  classes?: string[];
  /** with `classes`: further documents by id (other class documents, domains, patches) */
  internalDocs?: { extraDocIds?: string[] };
  /**
   * On a stack that authorizes what it pulls (a server node, see SyncPolicy): the local user the
   * remote acts as. Without it the remote is an unprivileged peer (docs/replication.md#a-nodes-own-sync).
   */
  pullAs?: string;
}

