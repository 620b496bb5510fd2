import type * as z from 'zod/mini';
import { type AttributeModel, DocstackError, enumValues, type ErrorCode } from '../../index.js';

const TYPE_LABELS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  decimal: 'a number',
  boolean: 'true or false',
  date: 'a date string',
  enum: 'one of the enum values',
  object: 'an object',
  foreign_key: 'a document id',
};

export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function expectation(a: AttributeModel): string {
  const one = TYPE_LABELS[a.type] ?? 'a valid value';
  return a.isArray ? `a list of ${one.replace(/^an? /, '')} values` : one;
}

/** Turns the first zod issue of one attribute into a coded, readable DocstackError. */
export function issueToError(attribute: AttributeModel, issue: z.core.$ZodIssue, value: unknown): DocstackError {
  const path = attribute.name + issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  const at = issue.path.reduce<unknown>((v, p) => (v as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey], value);
  const got = `(got ${describeValue(at)})`;
  let code: ErrorCode = 'DS_VALIDATION_TYPE';
  let message = `"${path}" must be ${expectation(attribute)} ${got}.`;
  const scalarGotList = !attribute.isArray && Array.isArray(value);
  const listGotScalar = attribute.isArray && issue.path.length === 0 && !Array.isArray(value);
  if (scalarGotList || listGotScalar) {
    code = 'DS_VALIDATION_ARRAY';
    message = scalarGotList ? `"${path}" takes a single value, not a list.` : `"${path}" must be a list ${got}.`;
  } else if (issue.code === 'custom' && (issue.params as { code?: ErrorCode } | undefined)?.code) {
    code = (issue.params as { code: ErrorCode }).code;
    message = `"${path}": ${issue.message} ${got}.`;
  } else if (issue.code === 'invalid_type' && issue.expected === 'int') {
    code = 'DS_VALIDATION_INTEGER';
    message = `"${path}" must be a whole number ${got}.`;
  } else if ((issue.code === 'too_big' || issue.code === 'too_small') && issue.origin === 'string' && attribute.type === 'string') {
    code = 'DS_VALIDATION_MAX_LENGTH';
    message = `"${path}" is longer than ${attribute.maxLength} characters.`;
  } else if ((issue.code === 'too_big' || issue.code === 'too_small') && issue.origin === 'number') {
    code = 'DS_VALIDATION_RANGE';
    const bound = issue.code === 'too_big' ? `at most ${attribute.max}` : `at least ${attribute.min}`;
    message = `"${path}" must be ${bound} ${got}.`;
  } else if (issue.code === 'invalid_value' && attribute.type === 'enum') {
    code = 'DS_VALIDATION_ENUM';
    message = `"${path}" must be one of ${enumValues(attribute).map((v) => JSON.stringify(v)).join(', ')} ${got}.`;
  }
  return new DocstackError(code, message, { path, details: { attribute: attribute.name, issues: [issue.message] } });
}
