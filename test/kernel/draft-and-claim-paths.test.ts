import { describe, expect, it } from 'vitest';
import { KERNEL_ERRORS, type ClassModel, type Doc } from '../../index.js';
import { createDraft, decodeNaturalKey, naturalDocId, naturalIdOf, nowIso } from '../../kernel/drafts.js';
import { claimFor, keyIdOf } from '../../engine/indexes/primary-keys.js';
import { DocstackError } from '../../contracts/errors.js';

/**
 * The write path's per-document shortcuts answer exactly what their general form answers: the
 * one-attribute key's claim and natural id (one JSON text for both); and what createDraft
 * refuses, and how a natural id escapes its key, pinned as the shortcuts rely on them.
 */

const model = (name: string, keys: string[], simple = false): ClassModel =>
  ({
    name,
    simple,
    schema: Object.fromEntries([...keys.map((k) => [k, { name: k, type: 'string', primaryKey: true }]), ['label', { name: 'label', type: 'string' }]]),
  }) as unknown as ClassModel;

const refusedPath = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DocstackError);
    expect((err as DocstackError).code).toBe(KERNEL_ERRORS.docProtectedField('x').code);
    return (err as DocstackError).path;
  }
  return undefined;
};

describe('createDraft: what a new document may not set', () => {
  const item = model('Item', ['code']);
  const plugins = new Set(['~owner']);
  const draft = (input: Record<string, unknown>) => createDraft({ '~class': 'Item', code: 'a', ...input }, item, undefined, '2026-01-01T00:00:00.000Z', plugins);

  it('refuses each engine field and each plugin field, naming it', () => {
    for (const field of ['_rev', '_deleted', '~createTimestamp', '~updateTimestamp', '~tx', '~owner']) {
      expect(refusedPath(() => draft({ [field]: 'x' })), field).toBe(field);
    }
    expect(refusedPath(() => draft({ active: false }))).toBe('active');
    // two at once: the engine's fields are checked first, in their order
    expect(refusedPath(() => draft({ '~owner': 'x', _rev: '1-a' }))).toBe('_rev');
  });

  it('keeps what a new document may hold: _id, ~class, active: true, _attachments, other ~ fields of no one', () => {
    const doc = draft({ _id: 'Item-x', active: true, _attachments: {}, label: 'l' });
    expect(doc).toEqual({ _id: 'Item-x', '~class': 'Item', code: 'a', _attachments: {}, label: 'l', '~createTimestamp': '2026-01-01T00:00:00.000Z', active: true });
    expect(Object.keys(doc)[0]).toBe('_id');
    expect(draft({ label: 'k' })._id).toBe(naturalDocId('Item', ['a']));
  });

  it('builds the stored order whatever the input order: _id, ~class, the attributes as given, the stamp, active', () => {
    const order = ['_id', '~class', 'label', 'code', '~createTimestamp', 'active'];
    expect(Object.keys(createDraft({ label: 'l', active: true, '~class': 'Item', code: 'a', _id: 'Item-y' }, item, undefined, 'now'))).toEqual(order);
    expect(Object.keys(createDraft({ label: 'l', code: 'a', '~class': 'Other' }, item, 'Item-z', 'now'))).toEqual(order);
    const given = createDraft({ label: 'l', code: 'a', '~class': 'Other', _id: 'Item-q' }, item, 'Item-z', 'now');
    expect([given._id, given['~class']]).toEqual(['Item-z', 'Item']); // the given id and the model's name win
    // an own "__proto__" (parsed JSON) stays a field, never the prototype
    const parsed = createDraft(JSON.parse('{"code":"a","__proto__":{"polluted":1}}') as Record<string, unknown>, item, undefined, 'now');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toContain('__proto__');
    expect((parsed as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("builds on Node (attributes copied one by one) the draft the browser files' spread builds", () => {
    const inputs: Record<string, unknown>[] = [
      { '~class': 'Item', code: 'a', label: 'l' },
      { label: 'l', active: true, '~class': 'Item', code: 'a', _id: 'Item-y', 7: 'seven', 2: 'two' },
      JSON.parse('{"code":"a","__proto__":{"polluted":1},"label":"after"}') as Record<string, unknown>,
      Object.assign(Object.create(null) as Record<string, unknown>, { code: 'a', label: 'no prototype' }),
    ];
    const viaSpread = (input: Record<string, unknown>) => {
      globalThis.docstackBrowserBuild = true; // the browser files' branch (types/build-flags.d.ts)
      try {
        return createDraft(input, item, undefined, 'now');
      } finally {
        delete (globalThis as { docstackBrowserBuild?: boolean }).docstackBrowserBuild;
      }
    };
    for (const input of inputs) {
      const node = createDraft(input, item, undefined, 'now');
      const spread = viaSpread(input);
      expect(Object.keys(node)).toEqual(Object.keys(spread));
      expect(node).toEqual(spread);
      expect(Object.getPrototypeOf(node)).toBe(Object.prototype);
    }
  });

  it('copies no enumerable property an input inherits (a polluted prototype reaches no document)', () => {
    const inherited = Object.assign(Object.create({ injected: 'from the prototype' }) as Record<string, unknown>, { '~class': 'Item', code: 'a' });
    const doc = createDraft(inherited, item, undefined, 'now');
    expect(Object.keys(doc)).toEqual(['_id', '~class', 'code', '~createTimestamp', 'active']);
    expect(Object.hasOwn(doc, 'injected')).toBe(false);
  });
});

describe('a one-attribute key: the claim and the natural id from one JSON text', () => {
  const one = model('Item', ['code']);
  const two = model('Pair', ['a', 'b']);

  it('names the same entry and natural id as the general form, for every kind of key value', () => {
    for (const value of ['plain', 'ITEM-0000042', 'a-b-Z9', 'with "quotes" / é ✓', 'tab\tin', '', 42, -0, 1.5e300, true, false, { nested: [1, 'x'] }, [1, 2]]) {
      const natural = typeof value === 'object' ? undefined : naturalDocId('Item', [value]);
      expect(naturalIdOf(one, { code: value }), JSON.stringify(value)).toBe(natural);
      for (const id of [natural ?? 'Item-random', 'Item-other']) {
        const claim = claimFor(one, { _id: id, code: value } as unknown as Doc)!;
        expect(claim.keyId).toBe(keyIdOf('Item', [value]));
        expect(claim.natural).toBe(natural !== undefined && id === natural);
        expect(claim.attributes).toEqual(['code']);
      }
    }
    expect(claimFor(one, { _id: 'Item-x', code: null } as unknown as Doc)).toBeNull();
    expect(claimFor(one, { _id: 'Item-x' } as unknown as Doc)).toBeNull();
    expect(naturalIdOf(one, { code: Number.NaN })).toBeUndefined();
    expect(naturalIdOf(model('Simple', ['code'], true), { code: 'a' })).toBeUndefined();
  });

  it("answers each class's own id for the same key, one after the other (the last id made is kept for the claim)", () => {
    const other = model('Other', ['code']);
    expect(naturalIdOf(one, { code: 'k' })).toBe('Item-_22k_22');
    expect(naturalIdOf(other, { code: 'k' })).toBe('Other-_22k_22');
    expect(claimFor(one, { _id: 'Item-_22k_22', code: 'k' } as unknown as Doc)!.natural).toBe(true);
    expect(claimFor(other, { _id: 'Item-_22k_22', code: 'k' } as unknown as Doc)!.natural).toBe(false);
    expect(naturalIdOf(one, { code: 'k2' })).toBe('Item-_22k2_22');
    expect(naturalIdOf(one, { code: 'k' })).toBe('Item-_22k_22');
  });

  it('a key of two attributes keeps the general form', () => {
    const id = naturalDocId('Pair', ['x', 1]);
    expect(naturalIdOf(two, { a: 'x', b: 1 })).toBe(id);
    expect(claimFor(two, { _id: id, a: 'x', b: 1 } as unknown as Doc)).toMatchObject({ keyId: keyIdOf('Pair', ['x', 1]), natural: true, attributes: ['a', 'b'] });
  });

  it("a claim's attribute list cannot be changed through one claim (it is the model's, shared)", () => {
    const claim = claimFor(one, { _id: 'Item-x', code: 'x' } as unknown as Doc)!;
    expect(() => claim.attributes.push('other')).toThrow(TypeError);
    expect(claimFor(one, { _id: 'Item-y', code: 'y' } as unknown as Doc)!.attributes).toEqual(['code']);
  });
});

describe('natural ids escape every character an id part does not keep', () => {
  it('writes `_XX` for each ASCII character but letters, digits and "-", and reads every one back', () => {
    expect(naturalDocId('Item', ['a-Z 9/\u0001'])).toBe('Item-_22a-Z_209_2F_5Cu0001_22');
    expect(naturalDocId('Item', ['\u0001'])).toBe('Item-_22_5Cu0001_22'); // JSON writes a control character as \u…
    expect(naturalDocId('Item', ['ok'])).toBe('Item-_22ok_22');
    expect(naturalDocId('Item', [42])).toBe('Item-42');
    const every = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join('');
    const id = naturalDocId('Item', [every, 'é✓']);
    expect(id).toMatch(/^Item-(?:[A-Za-z0-9-]|_[0-9A-F]{2})*\.(?:[A-Za-z0-9-]|_[0-9A-F]{2})*$/);
    expect(decodeNaturalKey('Item', id)).toEqual([every, 'é✓']);
    // character by character, the rule as a regex states it (Node scans codes instead of a replace)
    const rule = (json: string) => json.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
    for (const c of every) expect(naturalDocId('Item', [c])).toBe(`Item-${rule(JSON.stringify(c))}`);
    expect(naturalDocId('Item', ['"x"'])).toBe('Item-_22_5C_22x_5C_22_22'); // escapes first and last
    expect(naturalDocId('Item', [true])).toBe('Item-true'); // nothing to escape: the text itself
  });
});

describe('nowIso: a document timestamp', () => {
  it("is the clock's time as toISOString writes it, through new milliseconds, seconds, years and odd clocks", () => {
    const times = [
      Date.UTC(2026, 10, 28, 14, 0, 0, 0),
      Date.UTC(2026, 10, 28, 14, 0, 0, 1),
      Date.UTC(2026, 10, 28, 14, 0, 0, 1), // the same millisecond again
      Date.UTC(2026, 10, 28, 14, 0, 0, 9),
      Date.UTC(2026, 10, 28, 14, 0, 0, 10),
      Date.UTC(2026, 10, 28, 14, 0, 0, 99),
      Date.UTC(2026, 10, 28, 14, 0, 0, 100),
      Date.UTC(2026, 10, 28, 14, 0, 0, 999),
      Date.UTC(2026, 10, 28, 14, 0, 1, 0), // the next second
      Date.UTC(2026, 10, 28, 14, 0, 0, 500), // back in time (a test's clock)
      Date.UTC(2026, 10, 28, 14, 0, 0, 500) + 0.25, // a fraction of a millisecond
      Date.UTC(2026, 10, 28, 14, 0, 0, 501),
      Date.UTC(1969, 11, 31, 23, 59, 59, 1), // before the epoch
      -1,
      0,
      Date.UTC(10000, 0, 1, 0, 0, 0, 5), // a six-digit year
      8.64e15 - 1000,
      8.64e15, // the last millisecond a Date holds
    ];
    for (const ms of times) expect(nowIso({ now: () => ms }), String(ms)).toBe(new Date(ms).toISOString());
    for (let ms = Date.UTC(2026, 0, 1, 23, 59, 58, 0); ms < Date.UTC(2026, 0, 2, 0, 0, 1, 0); ms += 7) expect(nowIso({ now: () => ms })).toBe(new Date(ms).toISOString());
  });

  it('refuses a clock past the last time a Date holds, or not a time, as toISOString does', () => {
    expect(nowIso({ now: () => 8.64e15 })).toBe('+275760-09-13T00:00:00.000Z'); // the kept second is the last one
    expect(() => nowIso({ now: () => 8.64e15 + 1 })).toThrow(RangeError);
    expect(() => nowIso({ now: () => Number.NaN })).toThrow(RangeError);
  });
});
