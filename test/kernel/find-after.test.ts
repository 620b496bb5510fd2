import { describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { expectRefused, kernelStack } from '../helpers/stack.js';

describe('findDocuments with `after` (a cursor)', () => {
  it('reads from the document after the given id on, with or without a selector, and refuses a non-id', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
    const ids = (await stack.createDocs(Array.from({ length: 12 }, (_, n) => ({ '~class': 'Item', n })))).map((d) => d._id).sort();
    expect((await stack.findDocuments('Item', undefined, { after: ids[4], limit: 3 })).map((d) => d._id)).toEqual(ids.slice(5, 8));
    expect((await stack.findDocuments('Item', undefined, { after: ids[11] }))).toEqual([]);
    // an id between two stored ones (a deleted cursor document): the next one on
    expect((await stack.findDocuments('Item', undefined, { after: `${ids[2]}0`, limit: 1 }))[0]._id).toBe(ids[3]);
    const even = await stack.findDocuments('Item', { n: { $in: [0, 2, 4, 6, 8, 10] } }, { after: ids[5] });
    expect(even.every((d) => d._id > ids[5])).toBe(true);
    await expectRefused(stack.findDocuments('Item', undefined, { after: 5 as unknown as string }), 'DS_QUERY_INVALID', 'after');
    await stack.close();
  });
});
