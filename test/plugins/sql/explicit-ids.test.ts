/**
 * stack.sql over a class whose documents include ids a caller chose outside `<Class>-…`
 * (docs/data-model.md, "Ids"): a full scan, `_id` points and ranges, and an index built before
 * and caught up after such a write all see them.
 */
import { describe, expect, it } from 'vitest';
import { Class } from '../../../index.js';
import { sqlStack } from './fixture.js';

describe('stack.sql and explicit ids', () => {
  it('reads a document created with an id outside the class range', async () => {
    const stack = await sqlStack();
    await Class.create(stack, 'Invoice', 'class', '', { total: { type: 'integer', indexed: true } });
    await stack.createDoc({ '~class': 'Invoice', total: 1 });
    // the index exists (and is caught up) before the explicit-id write
    expect(await stack.sql('SELECT total FROM Invoice WHERE total > 0')).toEqual([{ total: 1 }]);
    await stack.createDoc({ '~class': 'Invoice', total: 2 }, { id: 'inv-2024-001' });
    expect(await stack.sql('SELECT total FROM Invoice ORDER BY total')).toEqual([{ total: 1 }, { total: 2 }]);
    expect(await stack.sql('SELECT COUNT(*) AS n FROM Invoice')).toEqual([{ n: 2 }]);
    expect(await stack.sql('SELECT total FROM Invoice WHERE total > 1')).toEqual([{ total: 2 }]);
    expect(await stack.sql("SELECT total FROM Invoice WHERE _id = 'inv-2024-001'")).toEqual([{ total: 2 }]);
    expect(await stack.sql("SELECT total FROM Invoice WHERE _id >= 'inv-' AND _id < 'inv-\uffff'")).toEqual([{ total: 2 }]);
    await stack.updateDoc('inv-2024-001', { total: 5 });
    expect(await stack.sql('SELECT total FROM Invoice WHERE total > 4')).toEqual([{ total: 5 }]);
    await stack.purgeDocuments(['inv-2024-001']);
    expect(await stack.sql('SELECT total FROM Invoice WHERE total > 0')).toEqual([{ total: 1 }]);
  });
});
