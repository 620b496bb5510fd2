import { validationErrorList } from './errors.js';
import { attributeSchema } from './attribute-schema.js';
import { checkValue, compileClass } from './class-validator.js';
import { buildClassSchema } from './class-schema.js';
import { checkDateBounds } from './dates.js';
import { checkForeignKeyValue } from './foreign-keys.js';
import { normalizeValue } from './prepare.js';
import { TargetCache } from './target-cache.js';
import { prepareTap, validateTap } from './write-taps.js';
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
    // module functions, not closures per stack (./write-taps.ts says why); synchronous taps where
    // no I/O is needed: a promise less per write and hook (tapable calls them directly)
    hooks.beforeValidate.tap({ name: 'validation', stage: DEFAULTS_STAGE }, prepareTap);
    // foreign-key targets found stored, kept while this stack would see them change (./target-cache.ts)
    hooks.validate.tapAsync('validation', validateTap.bind(new TargetCache(stack)));

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
