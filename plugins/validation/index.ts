import { validationErrorList } from './errors.js';
import { attributeSchema } from './attribute-schema.js';
import { checkShape, checkValue, compileClass } from './class-validator.js';
import { buildClassSchema } from './class-schema.js';
import { checkDateBounds } from './dates.js';
import { checkForeignKeyValue, checkForeignKeys } from './foreign-keys.js';
import { prepareDraft, normalizeValue } from './prepare.js';
import { TargetCache } from './target-cache.js';
import { type ClassModel, type ClassSchema, definePlugin } from '../../index.js';

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
    // foreign-key targets found stored, kept while this stack would see them change (./target-cache.ts)
    const targets = new TargetCache(stack);
    // synchronous taps where no I/O is needed: a promise less per write and hook (tapable calls them directly)
    hooks.beforeValidate.tap({ name: 'validation', stage: DEFAULTS_STAGE }, (draft, ctx) => prepareDraft(draft, ctx.classModel, ctx.op));

    hooks.validate.tapAsync('validation', (draft, ctx, done) => {
      if (ctx.op === 'delete') return done(); // deleting never depends on the document being valid
      let reading: void | Promise<void>;
      try {
        const validator = compileClass(ctx.classModel, stack.attributeTypes);
        checkShape(validator, ctx.classModel, draft, ctx.opaque, stack.systemFields, (field) => ctx.origin === 'replication' || sameValue(draft[field], ctx.previous?.[field]));
        reading = checkForeignKeys(draft, ctx, validator.foreignKeys, targets);
      } catch (err) {
        return done(err as Error);
      }
      if (!reading) return done();
      reading.then(() => done(), (err: Error) => done(err));
    });

    // classObj.schemaZOD, once per class model (a changed class is a new model object)
    const schemas = new WeakMap<ClassModel, ClassSchema>();
    hooks.classSchema.tap('validation', (model) => {
      let schema = schemas.get(model);
      if (!schema) {
        schema = buildClassSchema(model, compileClass(model, stack.attributeTypes), stack.systemFields);
        schemas.set(model, schema);
      }
      return schema;
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

/** Equal as stored (JSON). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));
}
