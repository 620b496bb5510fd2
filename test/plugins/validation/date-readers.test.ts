/**
 * plugins/validation/dates.ts reads a format of fixed-width tokens by position (fixedWidthReader)
 * instead of through the format's regular expression (regexReader): both must answer every value
 * alike — the same instant, or undefined for a value the format does not accept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateReader, fixedWidthReader, regexReader } from '../../../plugins/validation/dates.js';

const FIXED = ['YYYY-MM-DD', 'DD/MM/YYYY', 'YYYYMMDD', 'YYYY-MM-DDTHH:mm:ss.SSS', 'HH:mm', 'MM.YYYY', 'YYYY-MM-DD HH:mm:ss'];

describe('date readers', () => {
  it('a format with Z (an offset) has no fixed-width reader; dateReader still reads it', () => {
    expect(fixedWidthReader('YYYY-MM-DDTHH:mmZ')).toBeUndefined();
    expect(dateReader('YYYY-MM-DDTHH:mmZ')('2024-03-01T10:00-05:30')).toBe(Date.UTC(2024, 2, 1, 15, 30));
  });

  it('reads what the regular expression reads, and refuses what it refuses', () => {
    const cases = ['2024-03-01', '2024-02-29', '2023-02-29', '2023-02-30', '2024-13-01', '2024-00-10', '0099-01-01', '2024-3-01', '2024-03-011', '2024/03/01', '２０２４-03-01', '2024-0a-01', '+024-03-01', ' 2024-03-01', '', '01/03/2024', '31/04/2024', '20240301', '2024-03-01T23:59:59.999', '2024-03-01T24:00:00.000', '10:59', '25:00', '12.2024', '2024-03-01 00:60:00'];
    for (const format of FIXED) {
      const fixed = fixedWidthReader(format)!;
      const regex = regexReader(format);
      for (const value of cases) expect(fixed(value), `${format} ${JSON.stringify(value)}`).toBe(regex(value));
    }
    expect(dateReader('YYYY-MM-DD')('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(dateReader('YYYY-MM-DD')('2023-02-29')).toBeUndefined();
    expect(dateReader('DD/MM/YYYY')('31/12/1999')).toBe(Date.UTC(1999, 11, 31));
  });

  it('agrees with the regular expression on generated values (digits, near misses, any text)', () => {
    const digits = (n: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n }).map((d) => d.join(''));
    const dateLike = fc.tuple(digits(4), digits(2), digits(2), fc.constantFrom('-', '/', '.', 'T')).map(([y, m, d, sep]) => `${y}${sep}${m}${sep}${d}`);
    const value = fc.oneof(dateLike, fc.string({ maxLength: 24 }), fc.string({ unit: fc.constantFrom(...'0123456789-/:.T ') , maxLength: 24 }));
    fc.assert(
      fc.property(fc.constantFrom(...FIXED), value, (format, text) => fixedWidthReader(format)!(text) === regexReader(format)(text)),
      { seed: 29, numRuns: 5_000 },
    );
  });

  it('gives the instant Date gives for every calendar day and time it reads (leap years, month ends, years under 100)', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    const parts = fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 999 }));
    const format = 'YYYY-MM-DD HH:mm:ss.SSS';
    const [fixed, regex] = [fixedWidthReader(format)!, regexReader(format)];
    let read = 0;
    fc.assert(
      fc.property(parts, ([y, m, d, h, min, ms]) => {
        const text = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)} ${pad(h, 2)}:${pad(min, 2)}:${pad(min, 2)}.${pad(ms, 3)}`;
        const instant = fixed(text);
        if (instant !== undefined) read++;
        return instant === regex(text);
      }),
      { seed: 29, numRuns: 20_000 },
    );
    expect(read).toBeGreaterThan(10_000); // most generated values are real instants: the arithmetic is what was compared
    for (const day of ['2000-02-29', '1900-02-29', '2100-02-28', '2024-12-31', '0100-01-01', '0099-12-31', '9999-12-31']) {
      expect(fixedWidthReader('YYYY-MM-DD')!(day), day).toBe(regexReader('YYYY-MM-DD')(day));
    }
    expect(fixedWidthReader('YYYY-MM-DD')!('1900-02-29')).toBeUndefined();
    expect(fixedWidthReader('YYYY-MM-DD')!('2000-02-29')).toBe(Date.UTC(2000, 1, 29));
  });
});
