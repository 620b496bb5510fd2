import { filterInMemoryFields, massageSelector } from 'pouchdb-selector-core';
import { depthExceeds } from './shapes.js';

/** A change row read with its document. */
export interface ChangeRow {
  id: string;
  seq: number | string;
  deleted?: boolean;
  doc?: Record<string, unknown>;
}

/** Matches a change; `scope` is set for a class-scoped selector (matched by id alone). */
export type ChangeMatcher = ((row: ChangeRow) => boolean) & { scope?: ClassScope; needsDocs?: boolean };

/** The classes and ids a class-scoped selector asks for. */
export interface ClassScope {
  classes: string[];
  ids: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] | null => (Array.isArray(value) && value.length <= 10_000 && value.every((v) => typeof v === 'string') ? value : null);

/** `"X"` or `{ $eq: "X" }` or `{ $in: [...] }`: the set of values, or null for anything else. */
function valueSet(condition: unknown): Set<string> | null {
  if (typeof condition === 'string') return new Set([condition]);
  if (!isObject(condition) || Object.keys(condition).length !== 1) return null;
  if (typeof condition.$eq === 'string') return new Set([condition.$eq]);
  const list = strings(condition.$in);
  return list ? new Set(list) : null;
}

/** `{ "~class": … }` / `{ "_id": … }` as a field and its value set, or null. */
function fieldSet(clause: unknown): { field: '~class' | '_id'; values: Set<string> } | null {
  if (!isObject(clause)) return null;
  const keys = Object.keys(clause);
  if (keys.length !== 1 || (keys[0] !== '~class' && keys[0] !== '_id')) return null;
  const values = valueSet(clause[keys[0]]);
  return values ? { field: keys[0] as '~class' | '_id', values } : null;
}

/**
 * The selectors a class-scoped sync sends (plugins/sync/filter.ts) — `{ "~class": { $in } }`,
 * `{ _id: { $in } }` and their `$or` — matched by the id alone: a document of class C has an
 * `_id` starting with `C-` unless its creator chose another (those are listed per class: the feed
 * adds them, changes.ts), and class names hold no `-`, so the class of a change is the part of its
 * id before the first `-`. No document body is read, and a tombstone (which carries no `~class`)
 * travels with its class.
 */
function classSelector(selector: Record<string, unknown>): ChangeMatcher | null {
  const clauses = Object.keys(selector).length === 1 && Array.isArray(selector.$or) ? selector.$or : [selector];
  const classes = new Set<string>();
  const ids = new Set<string>();
  for (const clause of clauses) {
    const set = fieldSet(clause);
    if (!set) return null;
    for (const value of set.values) (set.field === '~class' ? classes : ids).add(value);
  }
  // class documents are named by their class name, not `class-…`: those match by their body
  if (classes.has('class') || classes.has('~self')) return null;
  const match: ChangeMatcher = (row) => {
    if (ids.has(row.id)) return true;
    const dash = row.id.indexOf('-');
    return dash > 0 && classes.has(row.id.slice(0, dash));
  };
  match.scope = { classes: [...classes].sort(), ids: [...ids].sort() };
  return match;
}

/**
 * The matcher of a `filter=_selector` request (CouchDB's Mango selector, in the POST body):
 * the class-scoped shapes above by set lookups, any other selector by PouchDB's own in-memory
 * matcher. An Error says what is malformed (answered 400).
 */
export function selectorMatcher(selector: unknown): ChangeMatcher | Error {
  if (!isObject(selector) || Object.keys(selector).length === 0) return new Error('filter=_selector needs a non-empty "selector" object in the body.');
  if (depthExceeds(selector, 20) || JSON.stringify(selector).length > 1_000_000) return new Error('The selector is too deeply nested or too large.');
  // a peer's regular expression would run over every change on the node: a catastrophic one
  // (ReDoS) would stall it, so `$regex` is not served
  if (JSON.stringify(selector).includes('"$regex"')) return new Error('The node does not serve $regex in a changes selector.');
  const fast = classSelector(selector);
  if (fast) return fast;
  let massaged: unknown;
  try {
    massaged = massageSelector(selector);
  } catch (err) {
    return new Error(`The selector is invalid: ${(err as Error).message}`);
  }
  const fields = Object.keys(massaged as object);
  const general: ChangeMatcher = (row) => {
    if (!row.doc) return false;
    try {
      return filterInMemoryFields([{ doc: row.doc }], { selector: massaged }, fields).length > 0;
    } catch {
      return false;
    }
  };
  general.needsDocs = true;
  return general;
}
