import type { EventEmitter } from 'events';
import { isExpectedRefusal, refusalOf, type DeniedRecords } from './denied.js';
import { toSyncError } from './errors.js';
import type { PendingCounter } from './pending.js';
import type { StatusTracker, SyncDirection, SyncResult } from './status.js';
import type { DocstackError } from '../../index.js';
import { isEachPeersOwnClassDoc } from '../../kit/index.js';

/** PouchDB's Sync: an emitter and a promise, with its two Replications. */
export type PouchSync = EventEmitter & PromiseLike<unknown> & { cancel(): void; push: EventEmitter; pull: EventEmitter };

interface Followed {
  sync: PouchSync;
  handle: EventEmitter;
  tracker: StatusTracker;
  pending: PendingCounter;
  /** the DocstackErrors the remote's fetch threw (PouchDB hands back copies) */
  thrown: readonly DocstackError[];
  denials: DeniedRecords;
  now(): string;
  live: boolean;
  cancelled(): boolean;
}

/**
 * Follows PouchDB's Sync into the handle: its events forwarded, the status kept, refusals of
 * both directions recorded, every error a DocstackError. PouchDB's Sync resolves `undefined` on
 * failure (it emits 'error' instead): the handle's promise rejects, so `await stack.sync(...)`
 * cannot mistake a refused login for success.
 */
export function followSync(f: Followed): Promise<SyncResult> {
  const { sync, handle, tracker, pending } = f;
  const recount = () => void pending.count().then((n) => tracker.setPending(n), () => undefined);
  for (const event of ['change', 'paused', 'active', 'denied'] as const) sync.on(event, (info: unknown) => handle.emit(event, info));
  recount();

  sync.on('change', (info: { direction: SyncDirection; change?: { docs?: unknown[]; last_seq?: unknown } }) => {
    if (info.direction === 'push') pending.pushedUpTo(info.change?.last_seq);
    // each peer's own engine documents go both ways (a node ignores them): not the app's data
    const docs = (info.change?.docs ?? []) as Array<{ _id?: unknown }>;
    tracker.written(info.direction, docs.filter((doc) => typeof doc?._id !== 'string' || !isEachPeersOwnClassDoc(doc._id)).length);
    recount();
  });
  sync.on('denied', (info: { direction?: SyncDirection; doc?: Record<string, unknown> }) => {
    if (!info?.doc || (info.direction !== 'push' && info.direction !== 'pull')) return;
    const entry = refusalOf(info.doc, info.direction, f.now());
    if (entry.direction === 'push') pending.refusedOnPush(entry.id);
    if (isExpectedRefusal(entry.code)) return;
    tracker.refuse(entry);
    void f.denials.record(entry).catch(() => undefined);
  });
  sync.push.on('checkpoint', (info: { checkpoint?: unknown }) => {
    if (info && 'checkpoint' in info) pending.pushedUpTo(info.checkpoint);
  });
  sync.on('active', () => tracker.setState('active'));
  // PouchDB's Sync settles its own promise after emitting 'error' (followed below); its cleanup
  // (removeAllListeners, re-entered through its own removeListener hook) can throw there ("The
  // listener argument must be of type function", seen once with a node killed mid-sync). The
  // error is reported already: that throw must not become an unhandled rejection of the process.
  sync.then(undefined, () => undefined);

  // a wrong password stays wrong: a live sync stops instead of logging in again at every retry
  let fatal: DocstackError | null = null;
  const onRoundError = (err: unknown) => {
    if (!err) return;
    const error = toSyncError(err, f.thrown);
    tracker.setError(error);
    if (error.code === 'DS_SYNC_LOGIN' && fatal === null) {
      fatal = error;
      sync.cancel();
    }
  };
  // before the Sync's own listeners: its `paused` must see the error of the round that paused
  sync.push.prependListener('paused', onRoundError);
  sync.pull.prependListener('paused', onRoundError);
  sync.on('paused', () => {
    const { error, lastSuccess } = tracker.snapshot();
    tracker.setState('paused', error);
    if (error === null) void pending.save(tracker.snapshot().lastSuccess ?? lastSuccess).catch(() => undefined);
    recount();
  });

  return new Promise<SyncResult>((resolve, reject) => {
    sync.on('complete', (info: { push?: unknown; pull?: unknown }) => {
      if (fatal) return fail(fatal);
      void (async () => {
        const cancelled = f.cancelled();
        tracker.setPending(await pending.count().catch(() => tracker.snapshot().pendingLocal ?? 0));
        tracker.setState(cancelled ? 'cancelled' : 'complete', cancelled ? tracker.snapshot().error : null);
        await pending.save(tracker.snapshot().lastSuccess).catch(() => undefined);
        const result: SyncResult = { ...tracker.snapshot(), push: info?.push, pull: info?.pull, ...(cancelled ? { cancelled: true } : {}) };
        handle.emit('complete', result);
        resolve(result);
      })();
    });
    sync.on('error', (err: unknown) => fail(fatal ?? toSyncError(err, f.thrown)));
    function fail(error: DocstackError) {
      // what is still to send is part of the answer: counted before the promise rejects
      void pending.count().then((n) => tracker.setPending(n), () => undefined).finally(() => {
        tracker.setState('error', error);
        if (handle.listenerCount('error') > 0) handle.emit('error', error);
        reject(error);
      });
    }
  });
}
