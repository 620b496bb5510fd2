import { describe, expect, it } from 'vitest';
import { Class, definePlugin, type Doc } from '../../index.js';
import { kernelStack } from '../helpers/stack.js';

describe('the findCandidates hook', () => {
  it('lets a plugin name the documents a findDocuments selector can match; the kernel still matches, orders and pages', async () => {
    const asked: unknown[] = [];
    let candidates: Doc[] = [];
    const oracle = definePlugin({
      name: 'oracle',
      setup({ hooks }) {
        hooks.findCandidates.tapPromise('oracle', async (selector, ctx) => {
          asked.push({ selector, className: ctx.classModel.name, includeInactive: ctx.includeInactive });
          return selector.n === 'scan' ? undefined : { docs: candidates };
        });
      },
    });
    const stack = await kernelStack({ plugins: [oracle] });
    await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
    const [a, b, c] = await stack.createDocs([1, 2, 3].map((n) => ({ '~class': 'Item', n })));
    const raw = async (id: string) => (await stack.storage.get<Doc>(id))!;
    // a superset, out of order, with a document of another class: only matching ones of the class come back, in _id order
    candidates = [await raw(c._id), await raw(a._id), { ...(await raw(b._id)), '~class': 'Other' }];
    const found = await stack.findDocuments('Item', { n: { $gte: 1 } });
    expect(found.map((d) => d._id)).toEqual([a._id, c._id].sort());
    expect(await stack.findDocuments('Item', { n: { $gte: 1 } }, { skip: 1 })).toHaveLength(1);
    expect(asked[0]).toEqual({ selector: { n: { $gte: 1 } }, className: 'Item', includeInactive: false });
    // undefined: the class scan answers
    expect(await stack.findDocuments('Item', { n: 'scan' })).toEqual([]);
    // no selector: never asked
    asked.length = 0;
    expect(await stack.findDocuments('Item')).toHaveLength(3);
    expect(asked).toEqual([]);
  });
});
