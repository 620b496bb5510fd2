import { EventEmitter } from 'events';
import { describe, expect, it } from 'vitest';
import { followSync, type PouchSync } from '../../../plugins/sync/follow.js';
import { PendingCounter } from '../../../plugins/sync/pending.js';
import { StatusTracker } from '../../../plugins/sync/status.js';

/**
 * PouchDB's Sync emits 'error', then cleans up; that cleanup once threw inside its own promise
 * (removeAllListeners re-entered through its removeListener hook, a node killed mid-sync), which
 * became an unhandled rejection of the whole process. followSync takes that rejection.
 */
describe('followSync and the Sync promise', () => {
  it("reports the Sync's error and leaves no unhandled rejection when PouchDB's own cleanup throws after it", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let failCleanup!: (err: Error) => void;
      const settled = new Promise<unknown>((_resolve, reject) => (failCleanup = reject));
      const sync = Object.assign(new EventEmitter(), {
        push: new EventEmitter(),
        pull: new EventEmitter(),
        cancel: () => undefined,
        then: <A, B>(ok?: (v: unknown) => A, ko?: (e: unknown) => B) => settled.then(ok, ko),
      }) as unknown as PouchSync;
      const tracker = new StatusTracker(() => new Date(0).toISOString(), () => undefined);
      const pending = { count: async () => 0, save: async () => undefined, pushedUpTo: () => undefined, refusedOnPush: () => undefined } as unknown as PendingCounter;
      const following = followSync({ sync, handle: new EventEmitter(), tracker, pending, thrown: [], denials: { record: async () => undefined } as never, now: () => '', live: false, cancelled: () => false });
      const outcome = following.then(() => 'resolved', (err: { code?: string }) => err.code);
      sync.emit('error', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1'), { status: 500 }));
      failCleanup(new TypeError('The "listener" argument must be of type function. Received undefined'));
      expect(await outcome).toMatch(/^DS_SYNC_/);
      await new Promise((resolve) => setTimeout(resolve, 20)); // unhandled rejections are reported a turn later
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
