/**
 * stack.denials() / stack.resolveDenial(id) without a syncing plugin, and with a source of a
 * plugin's own (a third party tapping the `denials` and `resolveDenial` hooks) beside sync.
 */
import { describe, expect, it } from 'vitest';
import { Class, definePlugin, type DenialRecord } from '../../index.js';
import { slim } from '../../plugins.config.js';
import { kernelStack, memoryStack, rawDb } from '../helpers/stack.js';

/** A source keeping its refusals in memory, as a plugin syncing elsewhere (a drive, a queue) would. */
function keeper(records: DenialRecord[]) {
  return definePlugin({
    name: 'keeper',
    setup({ hooks }) {
      hooks.denials.tapPromise('keeper', async (all) => [...all, ...records]);
      hooks.resolveDenial.tapPromise('keeper', async (removed, { id }) => {
        const at = records.findIndex((r) => r.id === id);
        if (at >= 0) records.splice(at, 1);
        return at >= 0 || removed;
      });
    },
  });
}

describe('stack.denials', () => {
  it('answers [] and resolveDenial false when no loaded plugin keeps refusals (no sync plugin)', async () => {
    for (const stack of [await kernelStack(), await memoryStack({ plugins: slim })]) {
      expect(await stack.denials()).toEqual([]);
      expect(await stack.denials('Item')).toEqual([]);
      expect(await stack.resolveDenial('Item-1')).toBe(false);
      expect(await stack.resolveDenial(undefined as never)).toBe(false);
      await expect(stack.denials('' as never)).rejects.toMatchObject({ code: 'DS_QUERY_INVALID' });
    }
  });

  it('lists every source in one shape, oldest first: the class from the stored ~class or the id; resolveDenial asks each source', async () => {
    const records: DenialRecord[] = [
      { id: 'Order-9', code: 'DS_AUTHZ_SCHEMA', reason: 'not yours', direction: 'pull', at: '2024-01-02T00:00:00.000Z', source: 'keeper' },
      { id: 'Invoice', code: null, reason: 'refused', direction: 'push', at: '2024-01-01T00:00:00.000Z', source: 'keeper' },
    ];
    const stack = await kernelStack({ plugins: [keeper(records)] });
    await Class.create(stack, 'Note', 'class', '', { title: { type: 'string' } });
    // a stored document whose id does not start with its class (forged: as an older store may hold)
    const note = { _id: 'Legacy-7', ...(await rawDb(stack).put({ _id: 'Legacy-7', '~class': 'Note', title: 'n', active: true })) };
    records.push({ id: note._id, rev: note.rev, code: 'DS_UNIQUE_VIOLATION', reason: 'taken', direction: 'push', at: '2024-01-03T00:00:00.000Z', source: 'keeper' });

    const all = await stack.denials();
    expect(all.map((d) => [d.id, d.className])).toEqual([
      ['Invoice', 'class'], // no `-`: a class document's id
      ['Order-9', 'Order'], // not stored here: the id's prefix
      [note._id, 'Note'], // stored: its ~class, not the id's prefix
    ]);
    expect(all[2]).toEqual({ id: note._id, className: 'Note', rev: note.rev, code: 'DS_UNIQUE_VIOLATION', reason: 'taken', direction: 'push', at: '2024-01-03T00:00:00.000Z', source: 'keeper' });
    expect((await stack.denials('Order')).map((d) => d.id)).toEqual(['Order-9']);
    expect(await stack.resolveDenial('Order-9')).toBe(true);
    expect(await stack.resolveDenial('Order-9')).toBe(false);
    expect((await stack.denials()).map((d) => d.id)).toEqual(['Invoice', note._id]);
  });
});
