/**
 * The plain checks that spare a valid value its zod parse (plugins/validation/fast-checks.ts)
 * never accept what the attribute's zod schema refuses: value by value, on edge values and
 * random ones (fast-check, seeded). They must also accept the everyday valid values, or the
 * fast path would never be taken.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AttributeModel } from '../../../index.js';
import { kernelAttributeTypes } from '../../../engine/model/builtin-types.js';
import { attributeSchema } from '../../../plugins/validation/attribute-schema.js';
import { fastCheck } from '../../../plugins/validation/fast-checks.js';

const types = kernelAttributeTypes();
const attr = (a: Partial<AttributeModel> & Pick<AttributeModel, 'type'>): AttributeModel => ({ name: 'x', ...a }) as AttributeModel;

/** Each attribute with values it must accept without zod. */
const CASES: [AttributeModel, unknown[]][] = [
  [attr({ type: 'string' }), ['', 'a', 'ünïcode ✓']],
  [attr({ type: 'string', maxLength: 3 }), ['', 'abc']],
  [attr({ type: 'integer' }), [0, -5, Number.MAX_SAFE_INTEGER]],
  [attr({ type: 'integer', min: 0, max: 10 }), [0, 10]],
  [attr({ type: 'decimal' }), [0, 1.5, -2.25]],
  [attr({ type: 'decimal', precision: 2, min: 0 }), [0, 1.25, 19.99]],
  [attr({ type: 'boolean' }), [true, false]],
  [attr({ type: 'enum', values: ['draft', 'paid'] } as never), ['draft', 'paid']],
  [attr({ type: 'foreign_key', targetClass: 'C' } as never), ['C-1']],
  [attr({ type: 'date' }), ['2026-11-27', '2026-11-27T04:30:00Z', '2026-11-27T04:30:00.123+02:00']],
  [attr({ type: 'date', format: 'YYYY-MM-DD', min: '2000-01-01', max: '2030-12-31' } as never), ['2000-01-01', '2030-12-31', '2015-06-15']],
  [attr({ type: 'string', isArray: true, maxLength: 2 } as never), [[], ['a', 'bb']]],
  [attr({ type: 'integer', isArray: true, min: 1 } as never), [[1, 2, 3]]],
];

const EDGES: unknown[] = [
  undefined, null, '', ' ', 'abcd', 'draft ', 'DRAFT', 'C-1', '0', 'true', 0, -0, 1, -1, 0.1, 1.255, 19.999, 10, 11, -0.0001,
  Number.MAX_SAFE_INTEGER + 1, Number.MIN_SAFE_INTEGER - 1, NaN, Infinity, -Infinity, 1e21, true, false, [], [''], ['abc'], [0], [1, -1],
  [null], {}, { a: 1 }, new Date(0), '2026-02-30', '2026-13-01', '1999-12-31', '2031-01-01', '2026-11-27T25:00:00Z', '2026-11-27 04:30',
  '20261127', 'not a date', '2026-11-27T04:30:00', Symbol('s'), () => 1, 10n,
];

describe('fast checks agree with zod', () => {
  for (const [attribute, valid] of CASES) {
    const label = JSON.stringify({ ...attribute, name: undefined });
    it(`${label}: accepts the valid values without zod; accepts nothing zod refuses`, () => {
      const fast = fastCheck(attribute)!;
      const schema = attributeSchema(attribute, types);
      expect(fast).toBeTypeOf('function');
      for (const v of valid) {
        expect(schema.safeParse(v).success, `zod accepts ${String(v)}`).toBe(true);
        expect(fast(v), `fast accepts ${String(v)}`).toBe(true);
      }
      const agrees = (v: unknown) => !fast(v) || schema.safeParse(v).success;
      for (const v of EDGES) expect(agrees(v), `fast accepted ${String(v)}, zod refuses`).toBe(true);
      const dates = fc.date({ min: new Date(-1e14), max: new Date(1e14), noInvalidDate: true }).chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10), d.toISOString().replace('Z', '+05:30')));
      const values = fc.oneof(fc.anything(), fc.double(), fc.integer(), fc.string({ maxLength: 5 }), fc.constantFrom('draft', 'paid'), dates, fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 }))));
      fc.assert(fc.property(values, agrees), { seed: 29, numRuns: 2000 });
    });
  }

  it('a decimal precision decided by arithmetic (Node) accepts nothing toFixed refuses, precision 0 to 15', () => {
    for (let p = 0; p <= 15; p++) {
      const attribute = attr({ type: 'decimal', precision: p });
      const fast = fastCheck(attribute)!;
      const schema = attributeSchema(attribute, types);
      const scale = 10 ** p;
      // values of exactly p places, of one more, near 2^52 / 10^p (where the arithmetic gives way to toFixed), and any double
      const values = fc.oneof(
        fc.integer({ min: -1e15, max: 1e15 }).map((k) => k / scale),
        fc.integer({ min: -1e15, max: 1e15 }).map((k) => k / (scale * 10)),
        fc.double({ min: -4.6e15 / scale, max: 4.6e15 / scale, noNaN: true }).map((d) => Math.round(d * scale) / scale),
        fc.double({ noNaN: true }),
      );
      fc.assert(fc.property(values, (v) => !fast(v) || schema.safeParse(v).success), { seed: 29 + p, numRuns: 3000 });
      expect(fast(Math.round(1234.56789 * scale) / scale), `precision ${p}`).toBe(true);
    }
  });

  it('has no plain check for an object or a plugin type: zod always decides', () => {
    expect(fastCheck(attr({ type: 'object' }))).toBeUndefined();
    expect(fastCheck(attr({ type: 'reference' } as never))).toBeUndefined();
  });
});

describe('a compiled class builds each zod schema at its first need', () => {
  it('valid values build none; an invalid value builds its own attribute\'s schema and is refused with zod\'s issue', async () => {
    const { compileClass, checkShape } = await import('../../../plugins/validation/class-validator.js');
    const model = {
      _id: 'Lazy',
      name: 'Lazy',
      schema: {
        code: attr({ name: 'code', type: 'string', maxLength: 4 }),
        qty: attr({ name: 'qty', type: 'integer', min: 0 }),
        on: attr({ name: 'on', type: 'date', format: 'YYYY-MM-DD' } as never),
      },
    } as never;
    const compiled = compileClass(model, types);
    expect(compiled.attributes.map((a) => a.schemaBuilt)).toEqual([false, false, false]);
    checkShape(compiled, model, { _id: 'Lazy-1', '~class': 'Lazy', code: 'ab', qty: 3, on: '2026-11-27' } as never);
    expect(compiled.attributes.map((a) => a.schemaBuilt)).toEqual([false, false, false]);
    expect(() => checkShape(compiled, model, { _id: 'Lazy-2', '~class': 'Lazy', code: 'ab', qty: -1 } as never)).toThrow(expect.objectContaining({ code: 'DS_VALIDATION_RANGE', path: 'qty' }));
    expect(compiled.attributes.map((a) => a.schemaBuilt)).toEqual([false, true, false]);
  });
});

describe('a plain check is made once per definition for the process (docs/benchmarks.md#code-shared-by-every-stack)', () => {
  it('the same definition, on any attribute or stack, gets the same check; any difference that changes the check gets its own', () => {
    const check = fastCheck(attr({ type: 'string', maxLength: 3 }));
    expect(fastCheck({ ...attr({ type: 'string', maxLength: 3 }), name: 'other' })).toBe(check);
    expect(fastCheck(attr({ type: 'string', maxLength: 4 }))).not.toBe(check);
    expect(fastCheck(attr({ type: 'string', maxLength: 3, isArray: true }))).not.toBe(check);
    const active = fastCheck(attr({ type: 'enum', values: ['active', 'retired'] } as Partial<AttributeModel> & Pick<AttributeModel, 'type'>))!;
    const other = fastCheck(attr({ type: 'enum', values: ['active,retired'] } as Partial<AttributeModel> & Pick<AttributeModel, 'type'>))!;
    expect([active('active'), other('active'), other('active,retired')]).toEqual([true, false, true]);
    // a bound left out and a bound of null are told apart, as the check itself may tell them apart
    expect(fastCheck(attr({ type: 'integer', min: null as unknown as number }))).not.toBe(fastCheck(attr({ type: 'integer' })));
  });
});
