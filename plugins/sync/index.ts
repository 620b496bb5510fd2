import { EventEmitter } from 'events';
import PouchDB from 'pouchdb-core';
import HttpAdapter from 'pouchdb-adapter-http';
import Replication from 'pouchdb-replication';
import ChangesFilter from 'pouchdb-changes-filter';
import { DocstackError } from '../../kernel/errors.js';
import { bulkDocsLine } from '../../kernel/ingest-lines.js';
import { definePlugin } from '../../kernel/plugin.js';
import { getApi, type ClientStack } from '../../kernel/stack.js';
import { INCOMPLETE_ID, transactionsPlugin } from '../transactions/index.js';
import { registerPouchPlugin } from '../../kernel/pouch-plugins.js';
import type { ReplicationTarget } from '../../kernel/storage-replication.js';
import { authenticatedFetch, type Fetch, type SyncAuth } from './auth.js';
import { syncErrorList } from './errors.js';
import { followEphemeralClasses, pullSelector, pushFilter, syncScope, type SyncScope } from './filter.js';

export { SyncLoginError, type SyncAuth } from './auth.js';

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
}

/** Events: change { direction, change }, paused, active, denied, error, complete (as PouchDB's sync). */
export interface SyncHandle extends EventEmitter, PromiseLike<SyncResult> {
  cancel(): void;
}

export interface SyncResult {
  push?: unknown;
  pull?: unknown;
  cancelled?: boolean;
}

/** A document the remote refused (a push `denied`): kept until resolved (see docs/replication.md). */
export interface DeniedPush {
  id: string;
  rev?: string;
  /** the engine's code (`DS_UNIQUE_VIOLATION`, `DS_QUOTA_EXCEEDED`…) when the remote is a docstack node */
  code: string | null;
  reason: string;
  status: number | null;
  at: string;
}

/** The sync plugin's API; `stack.sync` is its member on the stack object. */
export interface SyncApi {
  /** Replicates both ways with a remote CouchDB-protocol endpoint (a docstack node), authenticated. */
  sync(options: SyncOptions): SyncHandle;
  /** The pushes a remote refused, by document id (the last refusal of each), until resolved. */
  denied(): Promise<DeniedPush[]>;
  /** Forgets the refusal of a document (the application changed or removed it). */
  resolveDenied(id: string): Promise<void>;
}

const DENIED_ID = '_local/~sync/denied';

type PouchSync = EventEmitter & PromiseLike<SyncResult> & { cancel(): void };
type PouchStatic = typeof PouchDB & { fetch: (url: string | Request, init?: RequestInit) => Promise<Response> };

/**
 * Sync with a docstack node (or CouchDB): PouchDB's own two-way replication, so revision trees
 * and checkpoints stay PouchDB's. The remote validates what it receives; what this stack
 * receives goes through `stack.ingest`, like a node's `_bulk_docs`.
 */
export const syncPlugin = definePlugin({
  name: 'sync',
  errors: syncErrorList,
  setup({ hooks, stack }): SyncApi {
    registerPouchPluginsOnce();
    const running = new Set<PouchSync>();
    // a live sync would keep writing into a closed store
    hooks.onClose.tap('sync', () => {
      for (const sync of running) sync.cancel();
      running.clear();
    });
    const denials = new DeniedRecords(stack);
    return {
      sync: (options: SyncOptions) => {
        const handle = startSync(stack, options, running);
        handle.on('denied', (info: { direction?: string; doc?: Record<string, unknown> }) => {
          if (info?.direction === 'push' && info.doc) void denials.record(info.doc).catch(() => undefined);
        });
        return handle;
      },
      denied: () => denials.list(),
      resolveDenied: (id: string) => denials.resolve(id),
    };
  },
  members: (api) => ({ sync: api.sync }),
});

/**
 * The refusals of this stack's pushes, in one `_local` document (it never replicates): the
 * application reads them (`denied()`), fixes or removes the document, then `resolveDenied(id)`.
 * Each is also announced as a `sync:denied` event on the stack.
 */
class DeniedRecords {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly stack: ClientStack) {}

  record(line: Record<string, unknown>): Promise<void> {
    const entry: DeniedPush = {
      id: String(line.id ?? ''),
      ...(typeof line.rev === 'string' ? { rev: line.rev } : {}),
      code: typeof line.code === 'string' ? line.code : null,
      reason: String(line.reason ?? line.message ?? 'refused'),
      status: typeof line.status === 'number' ? line.status : null,
      at: new Date(this.stack.clock.now()).toISOString(),
    };
    // every peer makes its own meta-class and engine documents (system patches): the node refusing
    // them is expected, not something for the application to resolve
    if (entry.code === 'DS_AUTHZ_META_CLASS' || entry.code === 'DS_AUTHZ_INTERNAL') return Promise.resolve();
    this.stack.emit('sync:denied', entry);
    return this.edit((all) => ({ ...all, [entry.id]: entry }));
  }

  async list(): Promise<DeniedPush[]> {
    await this.chain;
    const doc = await this.stack.storage.get<{ denied: Record<string, DeniedPush> }>(DENIED_ID);
    return Object.values(doc?.denied ?? {});
  }

  resolve(id: string): Promise<void> {
    return this.edit((all) => Object.fromEntries(Object.entries(all).filter(([key]) => key !== id)));
  }

  private edit(change: (all: Record<string, DeniedPush>) => Record<string, DeniedPush>): Promise<void> {
    const run = this.chain.then(async () => {
      const doc = await this.stack.storage.get<{ _id: string; _rev: string; denied: Record<string, DeniedPush> }>(DENIED_ID);
      await this.stack.storage.put({ _id: DENIED_ID, ...(doc ? { _rev: doc._rev } : {}), denied: change(doc?.denied ?? {}) });
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}

/** registerPouchPlugin adds each plugin once per process; the checks cover a plugin registered by other code. */
function registerPouchPluginsOnce(): void {
  const Pouch = PouchDB as unknown as { adapters: Record<string, unknown>; replicate?: unknown };
  if (!Pouch.adapters.http) registerPouchPlugin(HttpAdapter);
  if (typeof Pouch.replicate !== 'function') registerPouchPlugin(Replication);
  // filtered changes (the push filter, doc_ids): without it PouchDB ignores a filter and sends everything
  if (!(Pouch as unknown as { _changesFilterPlugin?: unknown })._changesFilterPlugin) registerPouchPlugin(ChangesFilter);
}

/**
 * This stack's store as PouchDB's replicator sees it, except that what it pulls goes through
 * `stack.ingest` (validated, keys claimed, `change` events) instead of straight into storage.
 * A refused document answers `forbidden`: the replicator reports it as `denied` and goes on.
 * A key clash is reported (`index:conflict`), not refused: the node has already decided.
 */
function ingestingTarget(stack: ClientStack): ReplicationTarget {
  return stack.storage.replication.target({
    bulkDocs: async (docs, newEdits) => {
      const results = await stack.ingest(docs, { origin: 'replication', newEdits, keyConflicts: 'report' });
      // every refusal is named `forbidden` for the replicator (it reports `denied` and goes on):
      // any other name makes it throw and stop the whole sync on one document the peer holds
      return results.map(bulkDocsLine).map((line) => (line.error ? { ...line, error: line.error, name: 'forbidden', message: line.reason } : { ok: true as const, id: line.id, rev: line.rev! }));
    },
  });
}

/** PouchDB's back_off_function: the next wait from the last one (0 after a success). */
function backOff(max: number): (delay: number) => number {
  return (delay) => Math.min(max, delay === 0 ? 250 + Math.floor(Math.random() * 250) : delay * 2);
}

function startSync(stack: ClientStack, options: SyncOptions, running: Set<PouchSync>): SyncHandle {
  if (!options || typeof options.remote !== 'string' || !/^https?:\/\//.test(options.remote)) {
    throw new DocstackError('DS_SYNC_OPTIONS', 'stack.sync needs { remote: "http(s)://host/db/<name>" }.', { path: 'remote' });
  }
  const scope = syncScope(options.classes, options.internalDocs);
  const Pouch = PouchDB as PouchStatic;
  const remoteFetch = authenticatedFetch(options.remote, options.auth, (url, init) => Pouch.fetch(url, init));
  const handle = new EventEmitter() as SyncHandle;
  let cancelled = false;
  let sync: PouchSync | null = null;
  const done = (async (): Promise<SyncResult> => {
    // the ephemeral classes are known before the first change is read: none may slip out
    const ephemeral = await followEphemeralClasses(stack);
    try {
      if (cancelled) {
        handle.emit('complete', { cancelled: true });
        return { cancelled: true };
      }
      // transactions: members of classes this stack does not pull are not waited for
      await getApi(stack, transactionsPlugin)?.receives(scope?.classes ?? null);
      sync = startPouchSync(stack, options, scope, ephemeral.names, remoteFetch);
      running.add(sync);
      const settle = followPulls(stack, sync, options.remote, remoteFetch);
      const result = await followSync(sync, handle);
      await settle(pulledTo(result));
      return result;
    } finally {
      ephemeral.stop();
      if (sync) running.delete(sync);
    }
  })();
  done.catch(() => undefined); // a caller listening to events only must not get an unhandled rejection
  return Object.assign(handle, {
    cancel: () => {
      cancelled = true;
      sync?.cancel();
    },
    then: <A, B>(ok?: ((v: SyncResult) => A | PromiseLike<A>) | null, ko?: ((e: unknown) => B | PromiseLike<B>) | null) => done.then(ok, ko),
  });
}

function startPouchSync(stack: ClientStack, options: SyncOptions, scope: SyncScope | null, ephemeral: ReadonlySet<string>, remoteFetch: Fetch): PouchSync {
  const remote = new PouchDB(options.remote, { fetch: remoteFetch, skip_setup: true } as never);
  const live = options.live === true;
  const sync = (PouchDB as unknown as { sync(a: unknown, b: unknown, opts: unknown): PouchSync }).sync(ingestingTarget(stack), remote, {
    live,
    retry: live && options.retry !== false,
    ...(options.batchSize ? { batch_size: options.batchSize } : {}),
    ...(options.maxRetryDelay ? { back_off_function: backOff(options.maxRetryDelay) } : {}),
    // push: ephemeral documents never leave; the scope in query_params names the checkpoint
    push: { filter: pushFilter(ephemeral, scope), query_params: scope ?? { ephemeral: 'excluded' } },
    // pull: a selector the node serves (filter=_selector); PouchDB names the checkpoint after it
    ...(scope ? { pull: { selector: pullSelector(scope) } } : {}),
  });
  const close = () => void remote.close().catch(() => undefined);
  sync.on('complete', close);
  sync.on('error', close);
  return sync;
}

/** The remote's sequence a one-shot sync's pull read up to. */
function pulledTo(result: SyncResult): unknown {
  return (result?.pull as { last_seq?: unknown } | undefined)?.last_seq;
}

/**
 * Transactions the remote resolved without some members (refused there): once a pull has read
 * the remote's changes past the point it resolved one, this stack resolves it too
 * (docs/transactions.md#across-replication). Run after a one-shot sync and each time a live one
 * catches up; a remote that publishes nothing (CouchDB, an older node) changes nothing.
 */
function followPulls(stack: ClientStack, sync: PouchSync, remote: string, remoteFetch: Fetch): (to: unknown) => Promise<void> {
  const api = getApi(stack, transactionsPlugin);
  let lastSeq: unknown;
  const settle = async (to: unknown) => {
    if (!api || to === undefined || to === null) return;
    try {
      const res = await remoteFetch(`${remote.replace(/\/+$/, '')}/_local/${encodeURIComponent(INCOMPLETE_ID.slice('_local/'.length))}`, { headers: new Headers({ accept: 'application/json' }) });
      if (!res.ok) return;
      const body = (await res.json()) as { txs?: unknown };
      if (body.txs && typeof body.txs === 'object') await api.settleFromPeer(body.txs as Record<string, { seq?: unknown; missing?: unknown }>, to);
    } catch {
      // the next round tries again: a transaction stays pending meanwhile, it is not lost
    }
  };
  if (!api) return settle;
  sync.on('change', (info: { direction?: string; change?: { last_seq?: unknown } }) => {
    if (info?.direction === 'pull' && info.change?.last_seq !== undefined) lastSeq = info.change.last_seq;
  });
  // a live sync that caught up: what it pulled so far is settled
  sync.on('paused', (err: unknown) => {
    if (!err) void settle(lastSeq);
  });
  return settle;
}

/**
 * PouchDB's Sync resolves `undefined` on failure (it emits 'error' instead): the handle's
 * promise rejects, so `await stack.sync(...)` cannot mistake a refused login for success.
 */
function followSync(sync: PouchSync, handle: SyncHandle): Promise<SyncResult> {
  for (const event of ['change', 'paused', 'active', 'denied'] as const) sync.on(event, (info: unknown) => handle.emit(event, info));
  return new Promise<SyncResult>((resolve, reject) => {
    sync.on('complete', (info: SyncResult) => {
      handle.emit('complete', info);
      resolve(info);
    });
    sync.on('error', (err: unknown) => {
      if (handle.listenerCount('error') > 0) handle.emit('error', err);
      reject(err);
    });
  });
}
