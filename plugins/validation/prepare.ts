import { formatDate } from './dates.js';
import type { ClassModel, Doc, WriteOp } from '../../index.js';

/**
 * What a create or an update does to a draft before it is checked (the beforeValidate tap, and
 * classObj.schemaZOD's first step): stamps defaults (create), drops null (it clears a
 * non-mandatory attribute), converts Date objects to text in the attribute's format.
 */
export function prepareDraft(draft: Doc, classModel: ClassModel, op: WriteOp): Doc {
  if (op === 'delete') return draft;
  const next: Record<string, unknown> = { ...draft };
  for (const attribute of Object.values(classModel.schema)) {
    let value = next[attribute.name];
    if (value === undefined && op === 'create' && attribute.defaultValue !== undefined) {
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

/** Dates given as Date objects are stored as text (JSON has no dates). */
export function normalizeValue(type: string, format: string | undefined, value: unknown): unknown {
  if (type !== 'date') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : formatDate(value, format);
  if (Array.isArray(value)) return value.map((v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? formatDate(v, format) : v));
  return value;
}
