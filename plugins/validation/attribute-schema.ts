import * as z from 'zod';
import { dateCheck } from './dates.js';
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

/** The zod schema of one (non-null) value of an attribute, arrays included. */
export function attributeSchema(attribute: AttributeModel, types: AttributeTypes): z.ZodType {
  const item = itemSchema(attribute, types);
  return attribute.isArray ? z.array(item) : item;
}

function itemSchema(a: AttributeModel, types: AttributeTypes): z.ZodType {
  switch (a.type) {
    case 'string': {
      const s = z.string();
      return a.maxLength === undefined ? s : s.max(a.maxLength);
    }
    case 'integer':
    case 'decimal': {
      let n = a.type === 'integer' ? z.number().int() : z.number();
      if (a.min !== undefined) n = n.min(a.min);
      if (a.max !== undefined) n = n.max(a.max);
      if (a.type === 'decimal' && a.precision !== undefined) {
        const p = a.precision;
        return n.refine((v) => Number(v.toFixed(p)) === v, coded('DS_VALIDATION_PRECISION', `at most ${p} decimal place${p === 1 ? '' : 's'}`));
      }
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'date': {
      const check = dateCheck(a.format);
      const expected = a.format ? `a date in the format ${a.format}` : 'an ISO 8601 date or date-time with offset';
      return z.string().refine(check, coded('DS_VALIDATION_DATE_FORMAT', `expected ${expected}`));
    }
    case 'enum':
      return z.enum(enumValues(a) as [string, ...string[]]);
    case 'object':
      return z.custom<Record<string, unknown>>(isPlainObject, coded('DS_VALIDATION_TYPE', 'expected an object'));
    case 'foreign_key':
      return z.string().min(1);
    default:
      return pluginTypeSchema(a, types);
  }
}

/** A type a plugin defines (`reference`): its own value check, reported as DS_VALIDATION_TYPE. */
function pluginTypeSchema(a: AttributeModel, types: AttributeTypes): z.ZodType {
  const validate = types.type(a.type)?.validate;
  return z.unknown().superRefine((value, ctx) => {
    const problem = validate?.(value, a);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'DS_VALIDATION_TYPE' } });
  });
}
