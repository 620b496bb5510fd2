/**
 * Date formats for `date` attributes. Without a format a date is an ISO 8601 calendar date or
 * date-time with an offset. With one it is either a name (`date`, `date-time`) or a pattern
 * of tokens: YYYY MM DD HH mm ss SSS; every other character stands for itself.
 */
import * as z from 'zod/mini';

const TOKENS: Record<string, { re: string; part: keyof Parts }> = {
  YYYY: { re: '(\\d{4})', part: 'year' },
  SSS: { re: '(\\d{3})', part: 'ms' },
  MM: { re: '(\\d{2})', part: 'month' },
  DD: { re: '(\\d{2})', part: 'day' },
  HH: { re: '(\\d{2})', part: 'hour' },
  mm: { re: '(\\d{2})', part: 'minute' },
  ss: { re: '(\\d{2})', part: 'second' },
};
const TOKEN_RE = /YYYY|SSS|MM|DD|HH|mm|ss/g;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

export type DateCheck = (value: string) => boolean;

export function dateCheck(format: string | undefined): DateCheck {
  if (format === undefined) return (v) => isoDate.safeParse(v).success || isoDateTime.safeParse(v).success;
  if (format === 'date') return (v) => isoDate.safeParse(v).success;
  if (format === 'date-time') return (v) => isoDateTime.safeParse(v).success;
  const order: (keyof Parts)[] = [];
  const source = format.split(TOKEN_RE);
  const tokens = format.match(TOKEN_RE) ?? [];
  let pattern = '^';
  source.forEach((literal, i) => {
    pattern += literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const token = tokens[i];
    if (token) {
      pattern += TOKENS[token].re;
      order.push(TOKENS[token].part);
    }
  });
  const re = new RegExp(`${pattern}$`);
  return (value) => {
    const m = re.exec(value);
    if (!m) return false;
    const parts: Parts = { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0 };
    order.forEach((part, i) => {
      parts[part] = Number(m[i + 1]);
    });
    return isRealMoment(parts);
  };
}

/** Refuses 2023-02-30, 25:00 and the like: the parts must survive a round trip through Date. */
function isRealMoment(p: Parts): boolean {
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return false;
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.ms));
  return d.getUTCFullYear() === p.year && d.getUTCMonth() === p.month - 1 && d.getUTCDate() === p.day;
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
  };
  return format.replace(TOKEN_RE, (t) => values[t]);
}
