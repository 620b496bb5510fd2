import * as z from 'zod/mini';
import { checkShape, type CompiledClass } from './class-validator.js';
import { prepareDraft } from './prepare.js';
import { type ClassModel, type Doc, isDocstackError } from '../../index.js';

const isRecord = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `tags[2].x` → ['tags', 2, 'x'] (a zod issue's path). */
const issuePath = (path: string | undefined) => (path ?? '').split(/[.[\]]+/).filter((p) => p !== '').map((p) => (/^\d+$/.test(p) ? Number(p) : p));

/**
 * classObj.schemaZOD: one zod schema for a whole document of the class. It checks the document
 * as a create prepares it (defaults stamped, null dropped, Date → text) with the very check the
 * validate tap runs (checkShape: unknown attributes, mandatory, each value's zod schema), so
 * both accept and refuse the same documents for the synchronous rules. A refusal is one issue
 * (the pipeline's first) carrying the DocstackError's code in `params.code`, its details in
 * `params.details`. Foreign keys are only checked to be ids here: their targets are read from
 * the store by the asynchronous part (foreign-keys.ts). Built from zod's custom and refine
 * alone (already in the slim bundle): `data` is the input as given.
 */
export function buildClassSchema(model: ClassModel, compiled: CompiledClass, systemFields: ReadonlySet<string>): z.ZodMiniType<Doc> {
  return z.custom<Doc>(isRecord, { message: 'expected a document (an object)', params: { code: 'DS_DOC_INVALID' } }).check(
    z.superRefine((doc, ctx) => {
      if (model.simple) return; // a simple class stores its documents as given
      try {
        checkShape(compiled, model, prepareDraft(doc, model, 'create'), undefined, systemFields);
      } catch (err) {
        if (!isDocstackError(err)) throw err;
        ctx.addIssue({ code: 'custom', input: doc, path: issuePath(err.path), message: err.message, params: { code: err.code, details: err.details } });
      }
    }),
  );
}
