import { filterInMemoryFields, massageSelector } from 'pouchdb-selector-core';
import { DocstackError } from './errors.js';
import type { Doc } from './model/types.js';

/** A Mango selector (CouchDB's query language), matched in memory by PouchDB's own matcher. */
export type Selector = Record<string, unknown>;

export type DocMatcher = (docs: Doc[]) => Doc[];

/** Massages the selector once, so a class scan pays for it once and not per document. */
export function compileSelector(selector: Selector | undefined): DocMatcher {
  if (selector === undefined || selector === null || Object.keys(selector).length === 0) return (docs) => docs;
  if (typeof selector !== 'object' || Array.isArray(selector)) {
    throw new DocstackError('DS_QUERY_INVALID', 'A selector must be an object such as { status: "open" } or { age: { $gt: 18 } }.');
  }
  let massaged: Selector;
  try {
    massaged = massageSelector(selector) as Selector;
  } catch (cause) {
    throw new DocstackError('DS_QUERY_INVALID', `The selector is invalid: ${(cause as Error).message}`, { cause });
  }
  const fields = Object.keys(massaged);
  return (docs) => {
    try {
      const rows = filterInMemoryFields(docs.map((doc) => ({ doc })), { selector: massaged }, fields) as { doc: Doc }[];
      return rows.map((row) => row.doc);
    } catch (cause) {
      throw new DocstackError('DS_QUERY_INVALID', `The selector is invalid: ${(cause as Error).message}`, { cause });
    }
  };
}

/** Keeps `_id` and the named fields (dotted paths are not split: attribute names only). */
export function projectFields(doc: Doc, fields: readonly string[] | undefined): Doc {
  if (!fields || fields.length === 0) return doc;
  const out: Record<string, unknown> = { _id: doc._id };
  for (const field of fields) if (Object.hasOwn(doc, field)) out[field] = doc[field];
  return out as Doc;
}
