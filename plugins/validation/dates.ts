/**
 * Date formats for `date` attributes (docs/data-model.md#dates). Without a format a date is an
 * ISO 8601 calendar date or date-time with an offset. With one it is either a name (`date`,
 * `date-time`) or a pattern of tokens: YYYY MM DD HH mm ss SSS Z; every other character stands
 * for itself. A value is stored as given; it is read (parsed) only to check it and to compare it
 * with the attribute's `min` / `max`, which are written in the same format.
 */
import * as z from 'zod/mini';
import { type AttributeModel, KERNEL_ERRORS } from '../../index.js';

const TOKENS: Record<string, string> = {
  YYYY: '(\\d{4})',
  SSS: '(\\d{3})',
  MM: '(\\d{2})',
  DD: '(\\d{2})',
  HH: '(\\d{2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
  // UTC, or an offset from it: the instant compared is the UTC one
  Z: '(Z|[+-]\\d{2}:\\d{2})',
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

const PART_OF: Record<string, keyof Parts> = { YYYY: 'year', SSS: 'ms', MM: 'month', DD: 'day', HH: 'hour', mm: 'minute', ss: 'second', Z: 'offset' };

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

/** The instant a date in the attribute's format stands for (ms since 1970, UTC), or undefined when it is not one. */
export type DateReader = (value: string) => number | undefined;

const readers = new Map<string, DateReader>();

/** The reader of one format (cached: a class's attributes share a handful of formats). */
export function dateReader(format: string | undefined): DateReader {
  const key = format ?? '';
  let reader = readers.get(key);
  if (!reader) {
    reader = buildReader(format);
    readers.set(key, reader);
  }
  return reader;
}

// zod decides what an ISO value is (as it always did here); Date.parse reads the instant of one
// it accepted (a calendar date is midnight UTC, a date-time its UTC instant)
const iso = (accepts: (v: string) => boolean): DateReader => (v) => (accepts(v) ? Date.parse(v) : undefined);

function buildReader(format: string | undefined): DateReader {
  if (format === undefined) return iso((v) => isoDate.safeParse(v).success || isoDateTime.safeParse(v).success);
  if (format === 'date') return iso((v) => isoDate.safeParse(v).success);
  if (format === 'date-time') return iso((v) => isoDateTime.safeParse(v).success);
  const order: (keyof Parts)[] = [];
  const source = format.split(TOKEN_RE);
  const tokens = format.match(TOKEN_RE) ?? [];
  let pattern = '^';
  source.forEach((literal, i) => {
    pattern += literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const token = tokens[i];
    if (token) {
      pattern += TOKENS[token];
      order.push(PART_OF[token]);
    }
  });
  const re = new RegExp(`${pattern}$`);
  return (value) => {
    const m = re.exec(value);
    if (!m) return undefined;
    // parts the format leaves out are those of 2000-01-01 00:00:00.000 UTC
    const parts: Parts = { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0, offset: 0 };
    order.forEach((part, i) => {
      parts[part] = part === 'offset' ? offsetMinutes(m[i + 1]) : Number(m[i + 1]);
    });
    return instantOf(parts);
  };
}

function offsetMinutes(text: string): number {
  if (text === 'Z') return 0;
  const sign = text[0] === '-' ? -1 : 1;
  return sign * (Number(text.slice(1, 3)) * 60 + Number(text.slice(4, 6)));
}

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
