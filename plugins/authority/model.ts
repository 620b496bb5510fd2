import { KERNEL_ERRORS, type AttributeModel, type ClassModel, type ConfigKeyDefinition, type Doc } from '../../index.js';

/** The document field listing the attributes whose number the node is still to assign. */
export const PENDING_FIELD = '~pending';

export const SEQUENCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
/** Types whose values have a stable JSON form, so a value can name a claim. */
const UNIQUE_TYPES = new Set(['string', 'integer', 'decimal', 'boolean', 'date', 'enum', 'foreign_key', 'reference']);

const invalid = (message: string, attribute: AttributeModel) => KERNEL_ERRORS.attributeConfigInvalid(message, { path: attribute.name });

/** `sequence: "<name>"` on an integer attribute: its value is drawn from the node's named sequence. */
export const sequenceKey: ConfigKeyDefinition = {
  key: 'sequence',
  rule: (value, attribute) => {
    if (typeof value !== 'string' || !SEQUENCE_NAME.test(value)) {
      throw invalid(`"sequence" of "${attribute.name}" must be a sequence name (a letter or digit, then letters, digits and _ . -, at most 100).`, attribute);
    }
    return value;
  },
  check: (a) => {
    if (a.sequence === undefined) return;
    if (a.type !== 'integer' || a.isArray) throw invalid(`"${a.name}" draws from a sequence: it must be a single integer attribute.`, a);
    if (a.primaryKey) throw invalid(`"${a.name}" draws from a sequence: it cannot be a primary key (an offline document has no number yet).`, a);
    if (a.mandatory) throw invalid(`"${a.name}" draws from a sequence: it cannot be mandatory (an offline document waits for its number), nor have a default.`, a);
    if (a.encrypted === true) throw invalid(`"${a.name}" draws from a sequence: the node assigns it, so it cannot be encrypted.`, a);
  },
};

/** `unique: true` on a non-key scalar attribute: no two live documents of the class share a value. */
export const uniqueKey: ConfigKeyDefinition = {
  key: 'unique',
  rule: (value, attribute) => {
    if (typeof value !== 'boolean') throw invalid(`"unique" of "${attribute.name}" must be true or false.`, attribute);
    return value ? true : undefined;
  },
  check: (a) => {
    if (a.unique !== true) return;
    if (!UNIQUE_TYPES.has(a.type) || a.isArray) throw invalid(`"${a.name}" (${a.isArray ? 'a list' : a.type}) cannot be unique: only single scalar values can.`, a);
    if (a.primaryKey) throw invalid(`"${a.name}" is part of the primary key, which is unique already.`, a);
    if (a.encrypted === true) throw invalid(`"${a.name}" is encrypted: the node cannot compare its values, so it cannot be unique.`, a);
  },
};

export function sequenceAttributes(model: ClassModel): AttributeModel[] {
  return Object.values(model.schema).filter((a) => typeof a.sequence === 'string');
}

/** Attributes whose values are claimed: `unique: true` ones and sequence numbers (never two documents with one number). */
export const claimedAttributes: (model: ClassModel) => AttributeModel[] = globalThis.docstackBrowserBuild ? claimedOf : listedOnce;

// every write of every batch asks (refuseBatchDuplicates, per document): listed once per model
// object (a changed class is a new one); Node only, the browser files have no bytes for it
let claimedLists: WeakMap<ClassModel, AttributeModel[]> | undefined;

function listedOnce(model: ClassModel): AttributeModel[] {
  let list = (claimedLists ??= new WeakMap()).get(model);
  if (!list) claimedLists.set(model, (list = claimedOf(model)));
  return list;
}

function claimedOf(model: ClassModel): AttributeModel[] {
  return Object.values(model.schema).filter((a) => a.unique === true || typeof a.sequence === 'string');
}

/** The attributes of a document still waiting for their number (its `~pending` list). */
export function pendingOf(doc: Record<string, unknown> | null | undefined): string[] {
  const value = doc?.[PENDING_FIELD];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** True while the node has not yet assigned the document's number for this attribute. */
export function isPending(doc: Record<string, unknown> | null | undefined, attribute: string): boolean {
  return pendingOf(doc).includes(attribute);
}

export type { Doc };
