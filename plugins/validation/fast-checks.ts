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
export const fastCheck: (a: AttributeModel) => FastCheck | undefined = globalThis.docstackBrowserBuild ? build : sharedCheck;

/**
 * The checks made so far, by what defines them: one check per definition for the whole process,
 * not per stack. A check is a closure, and V8 keeps a closure's optimized code only while some
 * closure of its kind lives: made per stack, every stack's checks died with it, and a full garbage
 * collection left the next stack's to be compiled again (docs/benchmarks.md#code-shared-by-every-stack).
 * Bounded: past MAX_SHARED definitions it starts over. Node only: a page opens one stack, and the
 * browser files have no bytes for it (types/build-flags.d.ts).
 */
let shared: Map<string, FastCheck | null> | undefined;
const MAX_SHARED = 4096;

function sharedCheck(a: AttributeModel): FastCheck | undefined {
  // everything build reads of the attribute; undefined kept apart from null (a check may tell them apart)
  const key = JSON.stringify([a.type, a.isArray === true, a.maxLength, a.min, a.max, a.precision, a.type === 'enum' ? enumValues(a) : null, a.format], (_, v: unknown) => (v === undefined ? '\u0000' : v));
  shared ??= new Map();
  let check = shared.get(key);
  if (check === undefined) {
    if (shared.size >= MAX_SHARED) shared.clear();
    shared.set(key, (check = build(a) ?? null));
  }
  return check ?? undefined;
}

function build(a: AttributeModel): FastCheck | undefined {
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
      if (!globalThis.docstackBrowserBuild && p !== undefined && p <= 15) {
        // Node: the precision by arithmetic first (toFixed makes a string per value); see withinPrecision
        const scale = 10 ** p;
        return (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (withinPrecision(v, scale) || Number(v.toFixed(p)) === v);
      }
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

/**
 * True only when `Number(v.toFixed(p)) === v` (scale = 10^p, p ≤ 15, so scale is exact): r =
 * round(v·scale), and r / scale (correctly rounded) being v makes v the double nearest r / 10^p.
 * With |r| < 2^52, v's spacing is under 10^-p, so r is the one integer toFixed picks and its text
 * reads back as v. False says nothing (toFixed decides).
 */
function withinPrecision(v: number, scale: number): boolean {
  const r = Math.round(v * scale);
  return r / scale === v && Math.abs(r) < 4_503_599_627_370_496;
}
