import * as z from 'zod/mini';
import type { CompiledClass } from './class-validator.js';
import { prepareDraft } from './prepare.js';
import type { ClassModel, Doc } from '../../index.js';

const isRecord = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * classObj.schemaZOD: one zod schema for a whole document of the class, built from the very
 * attribute schemas the validate tap checks with (CompiledClass), so both accept and refuse the
 * same documents for the synchronous rules. It first prepares the document as a create does
 * (defaults stamped, null dropped, Date → text), then checks unknown attributes, mandatory ones
 * and every value; `data` is the document as it would be validated. Foreign keys are only
 * checked to be ids: their targets are read from the store by the asynchronous part
 * (plugins/validation/foreign-keys.ts), outside this schema. Each refinement's issue carries
 * the docstack code in `params.code`.
 */
export function buildClassSchema(model: ClassModel, compiled: CompiledClass, systemFields: ReadonlySet<string>): z.ZodMiniType {
  // a simple class stores its documents as given
  if (model.simple) return z.custom<Doc>(isRecord);
  const shape: Record<string, z.ZodMiniType> = {};
  // prepared drafts hold no null: a missing mandatory attribute is a missing key
  for (const { model: attribute, schema } of compiled.attributes) shape[attribute.name] = attribute.mandatory ? schema : z.optional(schema);
  const whole = z.looseObject(shape).check(
    z.superRefine((doc, ctx) => {
      const unknown = Object.keys(doc).filter((k) => !compiled.known.has(k) && !systemFields.has(k));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          input: doc,
          path: [unknown[0]],
          message: `The class "${model.name}" has no attribute${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}.`,
          params: { code: 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', attributes: unknown },
        });
      }
    }),
  );
  return z.pipe(
    z.transform((value: unknown) => (isRecord(value) ? prepareDraft(value, model, 'create') : value)),
    whole,
  );
}
