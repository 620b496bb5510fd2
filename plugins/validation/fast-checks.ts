import { dateLimits } from './attribute-schema.js';
import { type AttributeModel, enumValues } from '../../index.js';

/** True when a value is certainly valid for its attribute; false says "ask zod" (never "invalid"). */
export type FastCheck = (value: unknown) => boolean;

/**
 * Plain checks for the built-in scalar types, so a valid value costs no zod parse (about a
 * tenth of a serial write's CPU went to zod's safeParse). Each accepts only what the attribute's
 * zod schema (./attribute-schema.ts) accepts; anything else — an invalid value, or a valid one
 * this check is unsure of — goes to zod, which gives the verdict and the exact issue. A type
 * without a plain check (object, a plugin's type) always goes to zod. The agreement is tested
 * value by value (test/plugins/validation/fast-checks.test.ts).
 */
export function fastCheck(a: AttributeModel): FastCheck | undefined {
  const item = itemCheck(a);
  if (!item || !a.isArray) return item;
  return (value) => Array.isArray(value) && value.every(item);
}

function itemCheck(a: AttributeModel): FastCheck | undefined {
  switch (a.type) {
    case 'string': {
      const max = a.maxLength;
      return max === undefined ? (v) => typeof v === 'string' : (v) => typeof v === 'string' && v.length <= max;
    }
    case 'integer':
    case 'decimal': {
      const min = typeof a.min === 'number' ? a.min : -Infinity;
      const max = typeof a.max === 'number' ? a.max : Infinity;
      if (a.type === 'integer') return (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
      const p = a.precision;
      return (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (p === undefined || Number(v.toFixed(p)) === v);
    }
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'enum': {
      const values = new Set<unknown>(enumValues(a));
      return (v) => typeof v === 'string' && values.has(v);
    }
    case 'foreign_key':
      return (v) => typeof v === 'string' && v.length > 0;
    case 'date': {
      const { read, min, max } = dateLimits(a);
      return (v) => {
        if (typeof v !== 'string') return false;
        const t = read(v);
        return t !== undefined && (min === undefined || t >= min) && (max === undefined || t <= max);
      };
    }
    default:
      return undefined;
  }
}
