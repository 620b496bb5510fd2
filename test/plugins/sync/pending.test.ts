/**
 * The sync status's pending count (plugins/sync/pending.ts) against a real memory stack: a
 * revision the pull stores while a count is reading the feed must still be known as pulled by
 * the next count (a clean sync once answered pendingLocal 1: the count that ended meanwhile
 * forgot it).
 */
import { describe, expect, it } from 'vitest';
import { Class } from '../../../index.js';
import { PendingCounter } from '../../../plugins/sync/pending.js';
import { memoryStack } from '../../helpers/stack.js';

describe('PendingCounter', () => {
  it('keeps a revision pulled during a count for the next one; forgets what it accounted for', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Item', 'class', '', { title: { type: 'string' } });
    const counter = new PendingCounter(stack, 'remote', () => true);
    await counter.load();
    counter.pushedUpTo((await stack.storage.changes({ since: 0 })).lastSeq); // all on the remote so far
    const first = await stack.createDoc({ '~class': 'Item', title: 'pulled before' });
    counter.pulled([{ ok: true, id: first._id, rev: first._rev }]);

    // the count reads its page; the pull stores and reports a document before the count ends
    const changes = stack.storage.changes.bind(stack.storage);
    let during: Promise<void> | null = null;
    stack.storage.changes = async (options) => {
      const page = await changes(options);
      during ??= (async () => {
        const doc = await stack.createDoc({ '~class': 'Item', title: 'pulled during' });
        counter.pulled([{ ok: true, id: doc._id, rev: doc._rev }]);
      })();
      await during;
      return page;
    };
    expect(await counter.count()).toBe(0);
    stack.storage.changes = changes;
    expect(await counter.count()).toBe(0); // was 1: the count above forgot the second pull
    // a local write is pending; accounted pulls were forgotten (a pulled id written again counts)
    await stack.updateDoc(first._id, { title: 'edited here' });
    expect(await counter.count()).toBe(1);
  });
});
