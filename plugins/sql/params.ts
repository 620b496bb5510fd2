import type { Node } from './alasql.js';
import { SQL_ERRORS } from './errors.js';
import { isPlainObject } from '../../kit/index.js';

/** The parameters as alasql reads them: positional values by index, named ones (and literals) by key. */
export type BoundParams = unknown[] & Record<string, unknown>;

const fail = (message: string) => SQL_ERRORS.params(message);

/** A parameter value: a scalar, or a list of scalars (for `IN (?)`); a Date is its ISO text. */
function checkValue(value: unknown, where: string): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw fail(`The parameter ${where} is not a finite number.`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => checkValue(v, `${where}[${i}]`));
  throw fail(`The parameter ${where} must be text, a number, a boolean, null, a Date or a list of them (got ${value === undefined ? 'undefined' : typeof value}).`);
}

/**
 * Binds the caller's parameters to the statement's placeholders: an array for `?`, an object
 * for `$name`; every placeholder must have its value (alasql would read a missing one as
 * undefined and answer wrongly, not fail).
 */
export function bindParams(params: unknown, placeholders: readonly Node[]): BoundParams {
  const positional = placeholders.filter((p) => typeof p.param === 'number').map((p) => p.param as number);
  const named = [...new Set(placeholders.filter((p) => typeof p.param === 'string').map((p) => p.param as string))];
  if (positional.length > 0 && named.length > 0) throw fail('A statement uses either `?` placeholders (an array of values) or `$name` ones (an object), not both.');
  const bound = [] as unknown as BoundParams;
  if (positional.length > 0) {
    if (!Array.isArray(params)) throw fail(`The statement has ${positional.length} \`?\` placeholder(s): pass their values as an array.`);
    const count = Math.max(...positional) + 1;
    if (params.length !== count) throw fail(`The statement has ${count} \`?\` placeholder(s) but ${params.length} value(s) were given.`);
    params.forEach((v, i) => (bound[i] = checkValue(v, `#${i + 1}`)));
  } else if (named.length > 0) {
    if (!isPlainObject(params)) throw fail('The statement has `$name` placeholders: pass their values as an object.');
    for (const name of named) {
      if (!Object.hasOwn(params, name)) throw fail(`The parameter $${name} has no value.`);
      bound[name] = checkValue(params[name], `$${name}`);
    }
  } else if (params !== undefined && !(Array.isArray(params) && params.length === 0) && !(isPlainObject(params) && Object.keys(params).length === 0)) {
    throw fail('The statement has no placeholder, but parameters were given.');
  }
  return bound;
}
