import { config, globalConfig } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';
import * as z from 'zod/mini';
import { dateReader } from './dates.js';
import { type AttributeModel, enumValues, type ErrorCode } from '../../index.js';
import type { AttributeTypes } from '../../kit/index.js';

// Plain objects only (prototype Object or null): a Date, Map or class instance is not JSON data —
// PouchDB would store a Date as a string and a Map as {}, so the attribute would not hold an object.
const isPlainObject = (v: unknown) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A refinement that carries the docstack code its failure maps to. */
const coded = (code: ErrorCode, message: string) => ({ message, params: { code } });

/**
 * zod/mini loads no locale (its issues say "Invalid input"); the classic API set English as the
 * default on its first schema, and DocstackError details.issues carry those messages. As the
 * classic API did, an app's own locale (z.config) wins.
 */
function useEnglishByDefault(): void {
  if (!globalConfig.localeError) config(en());
}

/** The zod schema of one (non-null) value of an attribute, arrays included. */
export function attributeSchema(attribute: AttributeModel, types: AttributeTypes): z.ZodMiniType {
  useEnglishByDefault();
  const item = itemSchema(attribute, types);
  return attribute.isArray ? z.array(item) : item;
}

function itemSchema(a: AttributeModel, types: AttributeTypes): z.ZodMiniType {
  switch (a.type) {
    case 'string': {
      const s = z.string();
      return a.maxLength === undefined ? s : s.check(z.maxLength(a.maxLength));
    }
    case 'integer':
    case 'decimal': {
      // the checks in the order the classic API ran them (the first issue is the one reported)
      const checks: z.core.$ZodCheck<number>[] = [];
      if (a.type === 'integer') checks.push(z.int());
      if (typeof a.min === 'number') checks.push(z.gte(a.min));
      if (typeof a.max === 'number') checks.push(z.lte(a.max));
      if (a.type === 'decimal' && a.precision !== undefined) {
        const p = a.precision;
        checks.push(z.refine((v: number) => Number(v.toFixed(p)) === v, coded('DS_VALIDATION_PRECISION', `at most ${p} decimal place${p === 1 ? '' : 's'}`)));
      }
      return checks.length === 0 ? z.number() : z.number().check(...checks);
    }
    case 'boolean':
      return z.boolean();
    case 'date':
      return dateSchema(a);
    case 'enum':
      return z.enum(enumValues(a) as [string, ...string[]]);
    case 'object':
      return z.custom<Record<string, unknown>>(isPlainObject, coded('DS_VALIDATION_TYPE', 'expected an object'));
    case 'foreign_key':
      return z.string().check(z.minLength(1));
    default:
      return pluginTypeSchema(a, types);
  }
}

/**
 * Text in the attribute's format; with `min` / `max`, the instant it stands for within theirs
 * (bounds included). A value that is no date of the format gets the format issue alone.
 */
/** A date attribute's reader and its bounds as instants (a bound its format cannot read is refused when the attribute is defined). */
export function dateLimits(a: AttributeModel): { read: (v: string) => number | undefined; min?: number; max?: number } {
  const read = dateReader(a.format);
  const limit = (text: unknown) => (typeof text === 'string' ? read(text) : undefined);
  return { read, min: limit(a.min), max: limit(a.max) };
}

function dateSchema(a: AttributeModel): z.ZodMiniType {
  const limits = dateLimits(a);
  const { read } = limits;
  const expected = a.format ? `a date in the format ${a.format}` : 'an ISO 8601 date or date-time with offset';
  const checks: z.core.$ZodCheck<string>[] = [z.refine((v: string) => read(v) !== undefined, coded('DS_VALIDATION_DATE_FORMAT', `expected ${expected}`))];
  const bound = (key: 'min' | 'max') => {
    const text = a[key];
    const limit = limits[key];
    if (limit === undefined) return;
    const within = key === 'min' ? (t: number) => t >= limit : (t: number) => t <= limit;
    const words = key === 'min' ? `at least ${text}` : `at most ${text}`;
    // a value that is no date of the format has the format issue; it is not out of range too
    const inRange = (v: string) => {
      const t = read(v);
      return t === undefined || within(t);
    };
    checks.push(z.refine(inRange, coded('DS_VALIDATION_RANGE', `must be ${words}`)));
  };
  bound('min');
  bound('max');
  return z.string().check(...checks);
}

/** A type a plugin defines (`reference`): its own value check, reported as DS_VALIDATION_TYPE. */
function pluginTypeSchema(a: AttributeModel, types: AttributeTypes): z.ZodMiniType {
  const validate = types.type(a.type)?.validate;
  return z.unknown().check(
    z.superRefine((value, ctx) => {
      const problem = validate?.(value, a);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'DS_VALIDATION_TYPE' } });
    }),
  );
}
