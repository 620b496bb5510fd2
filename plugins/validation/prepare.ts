import { formatDate } from './dates.js';
import type { AttributeModel, ClassModel, Doc, WriteOp } from '../../index.js';

/** Each class model's attributes, listed once per model object (a changed class is a new one). */
const attributeLists = new WeakMap<ClassModel, AttributeModel[]>();

function attributesOf(model: ClassModel): AttributeModel[] {
  let list = attributeLists.get(model);
  if (!list) attributeLists.set(model, (list = Object.values(model.schema)));
  return list;
}

/**
 * What a create or an update does to a draft before it is checked (the beforeValidate tap, and
 * classObj.schemaZOD's first step): stamps defaults (create), drops null (it clears a
 * non-mandatory attribute), converts Date objects to text in the attribute's format. The draft
 * is never changed: a draft with something to change is copied once, one with nothing (the usual
 * write: every value given, plain) is answered as it is.
 */
export function prepareDraft(draft: Doc, classModel: ClassModel, op: WriteOp): Doc {
  if (op === 'delete') return draft;
  let next: Record<string, unknown> | undefined;
  for (const attribute of attributesOf(classModel)) {
    const { name } = attribute;
    const given = draft[name];
    let value = given;
    if (value === undefined && op === 'create' && attribute.defaultValue !== undefined) {
      value = structuredClone(attribute.defaultValue);
    }
    if (value === null || value === undefined) {
      if (Object.hasOwn(draft, name)) delete (next ??= { ...draft })[name];
      continue;
    }
    const normalized = normalizeValue(attribute.type, attribute.format, value);
    if (normalized !== given) (next ??= { ...draft })[name] = normalized;
  }
  return (next ?? draft) as Doc;
}

/** Dates given as Date objects are stored as text (JSON has no dates). */
export function normalizeValue(type: string, format: string | undefined, value: unknown): unknown {
  if (type !== 'date') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : formatDate(value, format);
  if (Array.isArray(value)) return value.map((v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? formatDate(v, format) : v));
  return value;
}
