/**
 * Date formats for `date` attributes (docs/data-model.md#dates). Without a format a date is an
 * ISO 8601 calendar date or date-time with an offset. With one it is either a name (`date`,
 * `date-time`) or a pattern of tokens: YYYY MM DD HH mm ss SSS Z; every other character stands
 * for itself. A value is stored as given; it is read (parsed) only to check it and to compare it
 * with the attribute's `min` / `max`, which are written in the same format.
 */
import * as z from 'zod/mini';
import { type AttributeModel, KERNEL_ERRORS } from '../../index.js';

// token → its digits, the part it sets and how many digits it takes (Z: "Z" or an offset ±HH:mm,
// no fixed width; the instant compared is the UTC one)
const TOKENS: Record<string, [string, keyof Parts, number?]> = {
  YYYY: ['(\\d{4})', 'year', 4],
  SSS: ['(\\d{3})', 'ms', 3],
  MM: ['(\\d{2})', 'month', 2],
  DD: ['(\\d{2})', 'day', 2],
  HH: ['(\\d{2})', 'hour', 2],
  mm: ['(\\d{2})', 'minute', 2],
  ss: ['(\\d{2})', 'second', 2],
  Z: ['(Z|[+-]\\d{2}:\\d{2})', 'offset'],
};
const TOKEN_RE = /YYYY|SSS|MM|DD|HH|mm|ss|Z/g;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  /** minutes east of UTC */
  offset: number;
}

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

/** The instant a date in the attribute's format stands for (ms since 1970, UTC), or undefined when it is not one. */
export type DateReader = (value: string) => number | undefined;

/** The reader of one format. */
export function dateReader(format: string | undefined): DateReader {
  if (format === undefined) return iso((v) => isoDate.safeParse(v).success || isoDateTime.safeParse(v).success);
  if (format === 'date') return iso((v) => isoDate.safeParse(v).success);
  if (format === 'date-time') return iso((v) => isoDateTime.safeParse(v).success);
  return patternReader(format);
}

// zod decides what an ISO value is (as it always did here); Date.parse reads the instant of one
// it accepted (a calendar date is midnight UTC, a date-time its UTC instant)
const iso = (accepts: (v: string) => boolean): DateReader => (v) => (accepts(v) ? Date.parse(v) : undefined);

function patternReader(format: string): DateReader {
  // Node only: the browser files have no bytes for the positional reader (types/build-flags.d.ts)
  return (globalThis.docstackBrowserBuild ? undefined : fixedWidthReader(format)) ?? regexReader(format);
}

/**
 * A format of fixed-width tokens only (no Z), read by position: each token's digits at its place,
 * each literal character as written — what the pattern's regular expression accepts, without a
 * match object and a parts object per value (a date is checked on every write of a document
 * holding one: ≈ 1 µs a value through the regular expression, a third of that here). Exported with
 * regexReader for the test that holds them to the same answers.
 */
export function fixedWidthReader(format: string): DateReader | undefined {
  const { literals, tokens } = splitFormat(format);
  if (tokens.some((token) => TOKENS[token][2] === undefined)) return undefined;
  const fields: { at: number; width: number; part: keyof Parts }[] = [];
  const fixed: { at: number; code: number }[] = [];
  let length = 0;
  literals.forEach((literal, i) => {
    for (let k = 0; k < literal.length; k++) fixed.push({ at: length + k, code: literal.charCodeAt(k) });
    length += literal.length;
    const token = tokens[i];
    if (token) {
      const [, part, width] = TOKENS[token];
      fields.push({ at: length, width: width!, part });
      length += width!;
    }
  });
  // one parts object per reader, not per value: each value sets every part the format has, and
  // the others keep the start's values (utcInstant only reads it, and nothing here awaits)
  const parts = startParts();
  return (value) => {
    if (value.length !== length) return undefined;
    for (const { at, code } of fixed) if (value.charCodeAt(at) !== code) return undefined;
    for (const { at, width, part } of fields) {
      let n = 0;
      for (let k = at; k < at + width; k++) {
        const digit = value.charCodeAt(k) - 48;
        if (digit < 0 || digit > 9) return undefined;
        n = n * 10 + digit;
      }
      parts[part] = n;
    }
    return utcInstant(parts);
  };
}

const DAY_MS = 86_400_000;

/**
 * instantOf by arithmetic, for the fixed-width reader (no offset): the same answers without a
 * Date object and four reads of it per value. Date.UTC takes years 0–99 as 1900–1999, so
 * instantOf refuses them: so does this.
 */
function utcInstant(p: Parts): number | undefined {
  const { year, month, day } = p;
  if (year < 100 || month < 1 || month > 12 || day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 ? (leap ? 29 : 28) : 30 + ((month + (month >> 3)) & 1))) return undefined;
  return daysFromCivil(year, month, day) * DAY_MS + ((p.hour * 60 + p.minute) * 60 + p.second) * 1000 + p.ms;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export function regexReader(format: string): DateReader {
  const order: (keyof Parts)[] = [];
  const { literals, tokens } = splitFormat(format);
  let pattern = '^';
  literals.forEach((literal, i) => {
    pattern += literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const token = tokens[i];
    if (token) {
      pattern += TOKENS[token][0];
      order.push(TOKENS[token][1]);
    }
  });
  const re = new RegExp(`${pattern}$`);
  return (value) => {
    const m = re.exec(value);
    if (!m) return undefined;
    const parts = startParts();
    order.forEach((part, i) => {
      parts[part] = part === 'offset' ? offsetMinutes(m[i + 1]) : Number(m[i + 1]);
    });
    return instantOf(parts);
  };
}

/** A format's literal runs and the tokens between them (literals[i] comes before tokens[i]). */
function splitFormat(format: string): { literals: string[]; tokens: string[] } {
  return { literals: format.split(TOKEN_RE), tokens: format.match(TOKEN_RE) ?? [] };
}

/** The parts a format leaves out are those of 2000-01-01 00:00:00.000 UTC. */
const startParts = (): Parts => ({ year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0, offset: 0 });

const offsetMinutes = (text: string) => (text === 'Z' ? 0 : (text[0] === '-' ? -1 : 1) * (Number(text.slice(1, 3)) * 60 + Number(text.slice(4, 6))));

/** Refuses 2023-02-30, 25:00 and the like (the parts must survive a round trip through Date); else the UTC instant. */
function instantOf(p: Parts): number | undefined {
  if (p.hour > 23 || p.minute > 59 || p.second > 59 || Math.abs(p.offset) > 23 * 60 + 59) return undefined;
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.ms));
  const real = d.getUTCFullYear() === p.year && d.getUTCMonth() === p.month - 1 && d.getUTCDate() === p.day;
  return real ? d.getTime() - p.offset * 60_000 : undefined;
}

/** A Date given for a date attribute is stored as text in the attribute's format (UTC). */
export function formatDate(date: Date, format: string | undefined): string {
  const iso = date.toISOString();
  if (format === undefined || format === 'date-time') return iso;
  if (format === 'date') return iso.slice(0, 10);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const values: Record<string, string> = {
    YYYY: pad(date.getUTCFullYear(), 4),
    MM: pad(date.getUTCMonth() + 1),
    DD: pad(date.getUTCDate()),
    HH: pad(date.getUTCHours()),
    mm: pad(date.getUTCMinutes()),
    ss: pad(date.getUTCSeconds()),
    SSS: pad(date.getUTCMilliseconds(), 3),
    Z: 'Z',
  };
  return format.replace(TOKEN_RE, (t) => values[t]);
}

/** A date's `min` / `max` must be dates of its format, `min` not after `max` (hooks.checkAttribute). */
export function checkDateBounds(attribute: AttributeModel): void {
  if (attribute.type !== 'date') return;
  const read = dateReader(attribute.format);
  const format = attribute.format ?? 'ISO 8601 (a date, or a date-time with offset)';
  const instant = (key: 'min' | 'max') => {
    const text = attribute[key];
    if (text === undefined) return undefined;
    const t = typeof text === 'string' ? read(text) : undefined;
    if (t === undefined) {
      throw KERNEL_ERRORS.attributeConfigInvalid(`"${key}" of the date "${attribute.name}" must be a date in its format ${format} (got ${JSON.stringify(text)}).`, { path: attribute.name });
    }
    return t;
  };
  const min = instant('min');
  const max = instant('max');
  if (min !== undefined && max !== undefined && min > max) {
    throw KERNEL_ERRORS.attributeConfigInvalid(`"min" (${String(attribute.min)}) of "${attribute.name}" is after "max" (${String(attribute.max)}).`, { path: attribute.name });
  }
}
