import { primaryKeyAttributes, type ClassModel, type Doc } from '../../contracts/model.js';
import { isKeyScalar, isPlainTextNaturalId, naturalDocId, naturalIdOf, naturalIdOfJson } from '../../kernel/drafts.js';

/**
 * A document's primary-key claim and the ids it is known by: the key entry's id
 * (`_local/~pk/<Class>/<values as JSON>`, engine/indexes/primary-keys.ts) and whether the document
 * is under its key's natural id (then the document is the claim, and no entry is written).
 */
export interface KeyClaim {
  keyId: string;
  docId: string;
  className: string;
  attributes: string[];
  /** is docId the key's natural id (claimFor knows it; a claim from elsewhere is checked by isNaturalClaim) */
  natural?: boolean;
}

export const PREFIX = '_local/~pk/';

export function primaryKeyValues(model: ClassModel, doc: Record<string, unknown>): unknown[] | null {
  const attributes = primaryKeyAttributes(model);
  if (attributes.length === 0) return null;
  const values = attributes.map((a) => doc[a.name]);
  // a document without its whole key has no index entry; mandatory checks refuse it anyway
  return values.some((v) => v === undefined || v === null) ? null : values;
}

export function keyIdOf(className: string, values: readonly unknown[]): string {
  return `${PREFIX}${className}/${JSON.stringify(values)}`;
}

/** A class model's key attribute names, one frozen list per model object (every claim names them). */
const keyNames = new WeakMap<ClassModel, string[]>();

function keyNamesOf(model: ClassModel): string[] {
  let names = keyNames.get(model);
  if (!names) keyNames.set(model, (names = Object.freeze(primaryKeyAttributes(model).map((a) => a.name)) as string[]));
  return names;
}

export function claimFor(model: ClassModel, doc: Doc): KeyClaim | null {
  const attributes = primaryKeyAttributes(model);
  let keyId: string;
  let natural: boolean;
  if (attributes.length === 1 && !globalThis.docstackBrowserBuild) {
    // the usual key, one attribute: its value's JSON makes both the entry id and the natural id
    // (Node only: the browser files have no bytes for it, types/build-flags.d.ts)
    const value = doc[attributes[0].name];
    if (value === undefined || value === null) return null;
    const json = JSON.stringify(value) ?? 'null'; // as the value reads inside an array (keyIdOf)
    keyId = `${PREFIX}${model.name}/[${json}]`;
    natural = isKeyScalar(value) && naturalIdOfJson(model.name, json) === doc._id;
  } else {
    const values = primaryKeyValues(model, doc);
    if (!values) return null;
    keyId = keyIdOf(model.name, values);
    natural = values.every(isKeyScalar) && naturalDocId(model.name, values) === doc._id;
  }
  return { keyId, docId: doc._id, className: model.name, attributes: keyNamesOf(model), natural };
}

/**
 * Is a new document under its key's natural id? A one-attribute key of plain text is compared
 * in place, nothing built (kernel/drafts.ts isPlainTextNaturalId) — a batch asks it of every document (engine/write-parts/natural-ids.ts naturalCreates); any other
 * key is derived and compared. Node only (the browser files have no bytes for it).
 */
export function underNaturalId(model: ClassModel, doc: Doc): boolean {
  const attributes = primaryKeyAttributes(model);
  const value = attributes.length === 1 ? doc[attributes[0].name] : undefined;
  return (typeof value === 'string' && isPlainTextNaturalId(model.name, value, doc._id)) || (naturalIdOf(model, doc) ?? null) === doc._id;
}

/** The key values of a claim (the entry id's JSON). */
function claimValues(claim: { keyId: string; className: string }): unknown[] {
  return JSON.parse(claim.keyId.slice(PREFIX.length + claim.className.length + 1)) as unknown[];
}

/** The natural id of a claim's key (as createDraft derives it), or undefined when the key has none. */
export function naturalIdOfClaim(claim: { keyId: string; className: string }): string | undefined {
  const values = claimValues(claim);
  return values.every(isKeyScalar) ? naturalDocId(claim.className, values) : undefined;
}

/** Is the claim's document under its key's natural id (then the document is the claim: no entry)? */
export function isNaturalClaim(claim: { keyId: string; className: string; docId: string; natural?: boolean }): boolean {
  return claim.natural ?? naturalIdOfClaim(claim) === claim.docId;
}

