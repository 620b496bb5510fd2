import { validationErrorList } from './errors.js';
import { attributeSchema } from './attribute-schema.js';
import { checkShape, checkValue, compileClass } from './class-validator.js';
import { dateReader, formatDate } from './dates.js';
import { checkForeignKeyValue, checkForeignKeys } from './foreign-keys.js';
import { type AttributeModel, definePlugin, type Doc, KERNEL_ERRORS, type WriteContext } from '../../index.js';

/** Runs before the other beforeValidate taps (before-triggers see the defaults). */
const DEFAULTS_STAGE = -100;

/**
 * Stamps defaults, normalises values (null clears, Date → text in the attribute's format),
 * then validates drafts against their class with zod, and foreign keys against the store.
 */
export const validationPlugin = definePlugin({
  name: 'validation',
  errors: validationErrorList,
  setup({ hooks, stack }) {
    hooks.beforeValidate.tapPromise({ name: 'validation', stage: DEFAULTS_STAGE }, async (draft, ctx) => prepareDraft(draft, ctx));

    hooks.validate.tapPromise('validation', async (draft, ctx) => {
      if (ctx.op === 'delete') return; // deleting never depends on the document being valid
      const validator = compileClass(ctx.classModel, stack.attributeTypes);
      checkShape(validator, ctx.classModel, draft, ctx.opaque, stack.systemFields, (field) => ctx.origin === 'replication' || sameValue(draft[field], ctx.previous?.[field]));
      await checkForeignKeys(draft, ctx, validator.foreignKeys);
    });

    // a date's min / max must be dates of its format, in order (the kernel only sees text)
    hooks.checkAttribute.tap('validation', (attribute) => checkDateBounds(attribute));

    // a defaultValue is refused when a document could not hold it, and stored in its stored form
    hooks.defaultValue.tapPromise('validation', async (value, { attribute }) => {
      const normalized = normalizeValue(attribute.type, attribute.format, value);
      checkValue(attribute, attributeSchema(attribute, stack.attributeTypes), normalized);
      await checkForeignKeyValue(stack, attribute, normalized);
      return normalized;
    });
  },
});

function prepareDraft(draft: Doc, ctx: WriteContext): Doc {
  if (ctx.op === 'delete') return draft;
  const next: Record<string, unknown> = { ...draft };
  for (const attribute of Object.values(ctx.classModel.schema)) {
    let value = next[attribute.name];
    if (value === undefined && ctx.op === 'create' && attribute.defaultValue !== undefined) {
      value = structuredClone(attribute.defaultValue);
    }
    if (value === null || value === undefined) {
      delete next[attribute.name];
      continue;
    }
    next[attribute.name] = normalizeValue(attribute.type, attribute.format, value);
  }
  return next as Doc;
}

/** Equal as stored (JSON). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));
}

/** Dates given as Date objects are stored as text (JSON has no dates). */
function normalizeValue(type: string, format: string | undefined, value: unknown): unknown {
  if (type !== 'date') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : formatDate(value, format);
  if (Array.isArray(value)) return value.map((v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? formatDate(v, format) : v));
  return value;
}

function checkDateBounds(attribute: AttributeModel): void {
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
