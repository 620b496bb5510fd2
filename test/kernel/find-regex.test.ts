/**
 * findDocuments with a linear-time `$regex` engine and a deadline (what the node's REST listing
 * passes, kernel/linear-regex.ts): the same matches as V8's RegExp where both run, refusals for
 * what RE2 cannot run, DS_QUERY_TOO_COSTLY past the deadline or the per-document regex work, and
 * the global RegExp given back whatever happens.
 */
import { describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { compileLinear } from '../../engine/queries/linear-regex.js';
import { MAX_REGEX_WORK } from '../../engine/queries/selector.js';
import { expectRefused, kernelStack } from '../helpers/stack.js';

describe('$regex on a linear-time engine', () => {
  it('matches as RegExp does, refuses what RE2 cannot run, stops at the deadline and past the regex work, and restores RegExp', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Item', 'class', '', { title: { type: 'string' }, tags: { type: 'string', isArray: true } });
    const titles = ['aaaa', `${'a'.repeat(40)}!`, 'Bob', 'bob smith', 'x.y', 'line\nbreak'];
    await stack.createDocs(titles.map((title, i) => ({ '~class': 'Item', title, tags: [`t${i}`, i % 2 ? 'odd' : 'even'] })));
    const regex = (pattern: string) => compileLinear(pattern);
    const find = async (selector: Record<string, unknown>, options = {}) => (await stack.findDocuments('Item', selector, { regex, ...options })).map((d) => d.title).sort();
    const plain = async (selector: Record<string, unknown>) => (await stack.findDocuments('Item', selector)).map((d) => d.title).sort();
    for (const selector of [
      { title: { $regex: '^b' } }, { title: { $regex: 'x\\.y' } }, { title: { $regex: '^line.break$' } },
      { $or: [{ title: { $regex: 'smith$' } }, { title: { $regex: '^a{4}$' } }] }, { tags: { $elemMatch: { $regex: '^t[0-2]$' } } },
      { title: { $regex: '^B', $ne: 'Bob' } }, { $nor: [{ title: { $regex: 'a' } }] },
    ]) {
      expect(await find(selector), JSON.stringify(selector)).toEqual(await plain(selector));
    }
    // RE2's inline flags (V8 has none): case ignored
    expect(await find({ title: { $regex: '(?i)^b' } })).toEqual(['Bob', 'bob smith']);
    // the ReDoS pattern answers at once on RE2 (on V8's RegExp, 40 characters would take hours)
    expect(await find({ title: { $regex: '^(a+)+$' } })).toEqual(['aaaa']);
    await expectRefused(stack.findDocuments('Item', { title: { $regex: '(a)\\1' } }, { regex }), 'DS_QUERY_INVALID', '$regex');
    await expectRefused(stack.findDocuments('Item', { title: { $regex: 'a'.repeat(1001) } }, { regex }), 'DS_QUERY_INVALID', '$regex');
    await expectRefused(stack.findDocuments('Item', { title: { $regex: 5 } }, { regex }), 'DS_QUERY_INVALID', '$regex');
    await expectRefused(stack.findDocuments('Item', { title: { $regex: 'a' } }, { regex, signal: AbortSignal.abort() }), 'DS_QUERY_TOO_COSTLY');
    // the regex work is bounded per document, not per page: many documents of ordinary size pass
    await stack.createDocs(Array.from({ length: 30 }, (_, i) => ({ '~class': 'Item', title: `${'w'.repeat(1000)}${i}`, tags: [] })));
    expect(await find({ title: { $regex: 'w29$' } })).toEqual([`${'w'.repeat(1000)}29`]);
    await stack.createDoc({ '~class': 'Item', title: 'z'.repeat(MAX_REGEX_WORK + 1), tags: [] });
    await expectRefused(stack.findDocuments('Item', { title: { $regex: 'q' } }, { regex }), 'DS_QUERY_TOO_COSTLY');
    expect(globalThis.RegExp).toBe(/x/.constructor);
    expect(new RegExp('a+').test('caab')).toBe(true);
    await stack.close();
  });
});
