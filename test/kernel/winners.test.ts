import { describe, expect, it, vi } from 'vitest';
import { readWinners } from '../../storage/winners.js';
import { kernelStack, rawDb } from '../helpers/stack.js';

describe('readWinners (the stored winner of each id, as allDocs({ keys }) reads it)', () => {
  it('answers live winners with their body, deleted ones with their revision, and leaves out missing and _local ids', async () => {
    const stack = await kernelStack();
    const db = rawDb(stack);
    const live = await db.put({ _id: 'Item-live', n: 1 });
    const gone = await db.put({ _id: 'Item-gone', n: 2 });
    const removed = await db.remove('Item-gone', gone.rev);
    await db.put({ _id: '_local/checkpoint', n: 3 });

    const winners = await readWinners(db, ['Item-live', 'Item-gone', 'Item-missing', '_local/checkpoint', 'Item-live']);

    expect([...winners.keys()].sort()).toEqual(['Item-gone', 'Item-live']);
    expect(winners.get('Item-live')).toMatchObject({ rev: live.rev, deleted: false, doc: { _id: 'Item-live', n: 1 } });
    expect(winners.get('Item-gone')).toEqual({ rev: removed.rev, deleted: true, doc: null });
  });

  it('reads by get, and through allDocs only the deleted winners', async () => {
    const stack = await kernelStack();
    const db = rawDb(stack);
    await db.put({ _id: 'Item-a', n: 1 });
    const scans = vi.spyOn(db, 'allDocs');
    await readWinners(db, ['Item-a', 'Item-b']);
    expect(scans).not.toHaveBeenCalled();
    const b = await db.put({ _id: 'Item-b', n: 2 });
    await db.remove('Item-b', b.rev);
    await readWinners(db, ['Item-a', 'Item-b']);
    expect(scans).toHaveBeenCalledTimes(1);
    expect(scans.mock.calls[0][0]).toEqual({ keys: ['Item-b'] });
  });
});
