import type { WriteSession } from '../../index.js';
import { EventEmitter } from 'events';
import PouchDB from 'pouchdb-core';
import HttpAdapter from 'pouchdb-adapter-http';
import Replication from 'pouchdb-replication';
import ChangesFilter from 'pouchdb-changes-filter';
import { SyncSessions, type Fetch, type SyncAuth } from './auth.js';
import { DeniedRecords } from './denied.js';
import { SYNC_ERRORS, syncErrorList } from './errors.js';
import { followEphemeralClasses, syncScope, type SyncScope } from './filter.js';
import { followSync, type PouchSync } from './follow.js';
import { PendingCounter } from './pending.js';
import { openRemote } from './remote.js';
import { StatusTracker, type HeldDocument, type SyncRefusal, type SyncResult, type SyncStatus } from './status.js';
import { pushOptions, type SyncPolicy } from './policy.js';
import type { SyncOptions } from './options.js';
import { type ClientStack, definePlugin, type DenialRecord, DocstackError, type IngestResult, type ReplicationTarget } from '../../index.js';
import { bulkDocsLine, registerPouchPlugin } from '../../kit/index.js';

export { authenticatedFetch, SyncLoginError, type SyncAuth } from './auth.js';
export type { DeniedPush, HeldDocument, SyncDirection, SyncRefusal, SyncResult, SyncState, SyncStatus } from './status.js';
export type { SyncPolicy } from './policy.js';
export type { SyncOptions } from './options.js';
export { SYNC_ERRORS } from './errors.js';

/**
 * Events: `status` (SyncStatus, on every change of it), change { direction, change }, paused,
 * active, denied { direction, doc }, error (a DocstackError), complete (SyncResult).
 */
export interface SyncHandle extends EventEmitter, PromiseLike<SyncResult> {
  cancel(): void;
  /** What the sync has done and where it stands now. */
  status(): SyncStatus;
}

/** The sync plugin's API; `stack.sync` is its member on the stack object. */
export interface SyncApi {
  /** Replicates both ways with a remote CouchDB-protocol endpoint (a docstack node), authenticated. */
  sync(options: SyncOptions): SyncHandle;
  /** The documents a sync refused, either side (the last refusal of each), until resolved. */
  denied(): Promise<SyncRefusal[]>;
  /** Forgets the refusal of a document (the application changed or removed it). */
  resolveDenied(id: string): Promise<void>;
  /** What every sync of this stack keeps local and how it authorizes pulls (a server node sets it). */
  usePolicy(policy: SyncPolicy): void;
}

interface SyncContext {
  stack: ClientStack;
  running: Set<PouchSync>;
  sessions: SyncSessions;
  denials: DeniedRecords;
  policy(): SyncPolicy;
}

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
    let policy: SyncPolicy = {};
    const ctx: SyncContext = { stack, running: new Set(), sessions: new SyncSessions(), denials: new DeniedRecords(stack), policy: () => policy };
    // a live sync would keep writing into a closed store
    hooks.onClose.tap('sync', () => {
      for (const sync of ctx.running) sync.cancel();
      ctx.running.clear();
      ctx.sessions.clear();
    });
    // stack.denials() / stack.resolveDenial(id): this plugin's records are one source of them
    hooks.denials.tapPromise('sync', async (all) => [...all, ...(await ctx.denials.list()).map(denialOf)]);
    hooks.resolveDenial.tapPromise('sync', async (removed, { id }) => (await ctx.denials.resolve(id)) || removed);
    return {
      sync: (options: SyncOptions) => startSync(ctx, options),
      denied: () => ctx.denials.list(),
      resolveDenied: async (id: string) => {
        await ctx.denials.resolve(id);
      },
      usePolicy: (next: SyncPolicy) => {
        policy = { ...next };
      },
    };
  },
  members: (api) => ({ sync: api.sync }),
});

/** A kept refusal as `stack.denials()` lists it (the engine adds `className`). */
function denialOf({ id, rev, code, reason, direction, at }: SyncRefusal): DenialRecord {
  return { id, ...(rev !== undefined ? { rev } : {}), code, reason, direction, at, source: 'sync' };
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
 * `session`: who the remote is for the `admit` taps (SyncPolicy.pullSession); `observe` sees
 * every ingest answer (held lines, pulled revisions).
 */
function ingestingTarget(stack: ClientStack, session: WriteSession | undefined, observe: (results: IngestResult[]) => void | Promise<void>): ReplicationTarget {
  return stack.storage.replication.target({
    bulkDocs: async (docs, newEdits) => {
      const results = await stack.ingest(docs, { origin: 'replication', newEdits, keyConflicts: 'report', ...(session !== undefined ? { session } : {}) });
      await observe(results);
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

/** The remote (without credentials) and the scope: what the kept counting start belongs to. */
function remoteKey(remote: string, scope: SyncScope | null): string {
  const url = new URL(remote);
  url.username = '';
  url.password = '';
  return scope ? `${url.href} ${JSON.stringify(scope)}` : url.href;
}

function checkOptions(options: SyncOptions, policy: SyncPolicy): void {
  if (!options || typeof options.remote !== 'string' || !/^https?:\/\//.test(options.remote)) {
    throw SYNC_ERRORS.syncOptions('stack.sync needs { remote: "http(s)://host/db/<name>" }.', { path: 'remote' });
  }
  if (options.pullAs !== undefined && (typeof options.pullAs !== 'string' || options.pullAs === '' || !policy.pullSession)) {
    throw SYNC_ERRORS.syncOptions('stack.sync: "pullAs" names a local user, on a stack that authorizes what it pulls (a server node).', { path: 'pullAs' });
  }
}

function startSync(ctx: SyncContext, options: SyncOptions): SyncHandle {
  const { stack } = ctx;
  const policy = ctx.policy();
  checkOptions(options, policy);
  const scope = syncScope(options.classes, options.internalDocs);
  const handle = new EventEmitter() as SyncHandle;
  const now = () => new Date(stack.clock.now()).toISOString();
  const tracker = new StatusTracker(now, (status) => handle.emit('status', status));
  let cancelled = false;
  let sync: PouchSync | null = null;
  const done = (async (): Promise<SyncResult> => {
    // the ephemeral classes are known before the first change is read: none may slip out
    const ephemeral = await followEphemeralClasses(stack);
    const stops: Array<() => void> = [ephemeral.stop];
    try {
      const session = policy.pullSession ? await policy.pullSession(options) : undefined;
      const push = pushOptions(ephemeral.names, scope, policy);
      const pending = new PendingCounter(stack, remoteKey(options.remote, scope), push.travels);
      tracker.remembered((await pending.load()).lastSuccess);
      stops.push(await followHeld(stack, tracker, ctx.denials, now));
      if (cancelled) {
        const result: SyncResult = { ...tracker.snapshot(), state: 'cancelled', cancelled: true };
        handle.emit('complete', result);
        return result;
      }
      const { db: remote, thrown, fetch: remoteFetch } = openRemote(options.remote, options.auth, ctx.sessions, {
        bulkDocs: (lines) => tracker.lines('remote', lines),
        wantsChanges: () => tracker.hasRemoteHeld(),
        listed: (rows) => rows.forEach((row) => tracker.release('remote', row.id, row.revs)),
      });
      const target = ingestingTarget(stack, session, (results) => {
        tracker.lines('local', results as never);
        pending.pulled(results);
        return policy.pulled?.(results);
      });
      // transactions: members of classes this stack does not pull are not waited for
      await stack.hooks.replicating.promise({ phase: 'start', classes: scope?.classes ?? null }, stack);
      const live = options.live === true;
      // live: a local write while offline (or between rounds) is counted as pending at once
      if (live) stops.push(stack.changes.subscribe(() => void pending.count().then((n) => tracker.setPending(n), () => undefined), { passive: true }));
      sync = (PouchDB as unknown as { sync(a: unknown, b: unknown, opts: unknown): PouchSync }).sync(target, remote, {
        live,
        retry: live && options.retry !== false,
        ...(options.batchSize ? { batch_size: options.batchSize } : {}),
        ...(options.maxRetryDelay ? { back_off_function: backOff(options.maxRetryDelay) } : {}),
        push: push.options,
        // pull: a selector the node serves (filter=_selector); PouchDB names the checkpoint after it
        ...(push.pullSelector ? { pull: { selector: push.pullSelector } } : {}),
      });
      ctx.running.add(sync);
      const close = () => void remote.close().catch(() => undefined);
      sync.on('complete', close);
      sync.on('error', close);
      const settle = followPulls(stack, sync, options.remote, remoteFetch);
      const result = await followSync({ sync, handle, tracker, pending, thrown, denials: ctx.denials, now, live, cancelled: () => cancelled });
      await settle(pulledTo(result));
      return result;
    } catch (err) {
      // before the replication started (pullAs refused, the store closed): the status says so too
      if (err instanceof DocstackError && tracker.snapshot().state !== 'error') tracker.setState('error', err);
      throw err;
    } finally {
      for (const stop of stops) stop();
      if (sync) ctx.running.delete(sync);
    }
  })();
  done.catch(() => undefined); // a caller listening to events only must not get an unhandled rejection
  return Object.assign(handle, {
    cancel: () => {
      cancelled = true;
      sync?.cancel();
    },
    status: () => tracker.snapshot(),
    then: <A, B>(ok?: ((v: SyncResult) => A | PromiseLike<A>) | null, ko?: ((e: unknown) => B | PromiseLike<B>) | null) => done.then(ok, ko),
  });
}

type HeldSource = { heldDocuments?: () => Promise<Array<Omit<HeldDocument, 'where'>>> };

/** The remote's sequence a one-shot sync's pull read up to. */
function pulledTo(result: SyncResult): unknown {
  return (result?.pull as { last_seq?: unknown } | undefined)?.last_seq;
}

/**
 * Each time the pull caught up (after a one-shot sync, and each time a live one pauses with
 * nothing left), the `replicating` taps learn how far it read and may read the remote's
 * `_local` documents (the transactions plugin: transactions the remote resolved without some
 * members, docs/transactions.md#across-replication). A remote that has none (CouchDB, an older
 * node) answers 404: nothing changes. A failure is tried again at the next round.
 */
function followPulls(stack: ClientStack, sync: PouchSync, remote: string, remoteFetch: Fetch): (to: unknown) => Promise<void> {
  let lastSeq: unknown;
  const readRemoteLocal = async (id: string): Promise<unknown> => {
    const res = await remoteFetch(`${remote.replace(/\/+$/, '')}/_local/${encodeURIComponent(id.slice('_local/'.length))}`, { headers: new Headers({ accept: 'application/json' }) });
    return res.ok ? res.json() : null;
  };
  const settle = async (to: unknown) => {
    if (to === undefined || to === null || !stack.hooks.replicating.isUsed()) return;
    try {
      await stack.hooks.replicating.promise({ phase: 'pulled', to, readRemoteLocal }, stack);
    } catch {
      // the next round tries again: a transaction stays pending meanwhile, it is not lost
    }
  };
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
 * Documents this stack holds (the kernel's ingest holding, when it has it): listed at the start,
 * dropped from the status when applied (`ingest:released`), recorded as a pull refusal when
 * refused once what they waited for arrived (`ingest:refused`). Returns the unsubscribe.
 */
async function followHeld(stack: ClientStack, tracker: StatusTracker, denials: DeniedRecords, now: () => string): Promise<() => void> {
  const source = stack as unknown as HeldSource;
  if (typeof source.heldDocuments === 'function') {
    const held = await Promise.resolve()
      .then(() => source.heldDocuments!())
      .catch(() => []);
    tracker.seedHeld(held.map((entry) => ({ ...entry, where: 'local' as const, waitingFor: [...(entry.waitingFor ?? [])] })));
  }
  const idOf = (event: unknown) => (typeof event === 'string' ? event : String((event as { id?: unknown })?.id ?? ''));
  const released = (event: unknown) => tracker.release('local', idOf(event));
  const refused = (event: unknown) => {
    const id = idOf(event);
    if (!tracker.isHeld('local', id)) return;
    const e = event as { code?: unknown; reason?: unknown; rev?: unknown; status?: unknown };
    const entry: SyncRefusal = { id, ...(typeof e.rev === 'string' ? { rev: e.rev } : {}), code: typeof e.code === 'string' ? e.code : null, reason: String(e.reason ?? 'refused'), status: typeof e.status === 'number' ? e.status : null, direction: 'pull', at: now() };
    tracker.refuse(entry);
    void denials.record(entry).catch(() => undefined);
  };
  stack.on('ingest:released', released);
  stack.on('ingest:refused', refused);
  return () => {
    stack.off('ingest:released', released);
    stack.off('ingest:refused', refused);
  };
}
