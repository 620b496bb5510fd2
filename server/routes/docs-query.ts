import { DocstackError, KERNEL_ERRORS, type Doc, type Selector } from '../../index.js';

/** What `GET /api/private/docs/:class` reads from its query string. */
export interface ListQuery {
  selector: Selector | undefined;
  fields: string[] | undefined;
  /** attribute names, each ascending or descending; `_id` always breaks ties */
  sort: Array<{ field: string; desc: boolean }>;
  limit: number;
  cursor: Cursor | null;
}

/** Where the previous page ended: the last document's id, and its sort values when sorted. */
export interface Cursor {
  id: string;
  keys?: unknown[];
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** A sorted listing sorts in memory: at most this many matching documents. */
export const MAX_SORTED = 10_000;

const invalid = (message: string, path: string) => KERNEL_ERRORS.queryInvalid(message, { path });

function text(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`${name} must be given once, as text.`, name);
  return value;
}

const NAME = /^[A-Za-z_~][A-Za-z0-9_~.-]*$/;

function names(raw: string, name: string): string[] {
  const list = raw.startsWith('[') ? (JSON.parse(raw) as unknown) : raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(list) || list.length > 100 || !list.every((f) => typeof f === 'string' && NAME.test(f.replace(/^-/, '')))) {
    throw invalid(`${name} must be attribute names separated by commas (or a JSON list of them).`, name);
  }
  return list as string[];
}

export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const q = text(query.q, 'q');
  let selector: Selector | undefined;
  if (q !== undefined && q !== '') {
    try {
      selector = JSON.parse(q) as Selector;
    } catch {
      throw invalid('q must be a JSON selector such as {"status":"open"}.', 'q');
    }
    if (selector === null || typeof selector !== 'object' || Array.isArray(selector)) throw invalid('q must be a JSON object (a Mango selector).', 'q');
  }
  const rawFields = text(query.fields, 'fields');
  const rawSort = text(query.sort, 'sort');
  let fields: string[] | undefined;
  let sort: ListQuery['sort'] = [];
  try {
    fields = rawFields ? names(rawFields, 'fields') : undefined;
    sort = rawSort ? names(rawSort, 'sort').map((f) => ({ field: f.replace(/^-/, ''), desc: f.startsWith('-') })) : [];
  } catch (err) {
    if (err instanceof DocstackError) throw err;
    throw invalid('fields and sort take names separated by commas, or a JSON list.', rawFields ? 'fields' : 'sort');
  }
  const rawLimit = text(query.limit, 'limit');
  const limit = rawLimit === undefined ? DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw invalid(`limit must be a whole number from 1 to ${MAX_LIMIT}.`, 'limit');
  const rawCursor = text(query.cursor, 'cursor');
  return { selector, fields, sort, limit, cursor: rawCursor ? decodeCursor(rawCursor) : null };
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(raw: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (value && typeof value.id === 'string' && (value.keys === undefined || Array.isArray(value.keys))) return value;
  } catch {
    // refused below
  }
  throw invalid('cursor must be the `next` value of a previous page, unchanged.', 'cursor');
}

/** null/undefined < booleans < numbers < strings < anything else (as JSON): one total order. */
function rank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  return 4;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  const x = ra === 4 ? JSON.stringify(a) : (a as number | string | boolean);
  const y = ra === 4 ? JSON.stringify(b) : (b as number | string | boolean);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function sortKeys(doc: Doc, sort: ListQuery['sort']): unknown[] {
  return sort.map((s) => doc[s.field] ?? null);
}

/** Compares two (keys, id) positions in the listing's order. */
export function comparePositions(a: { keys: unknown[]; id: string }, b: { keys: unknown[]; id: string }, sort: ListQuery['sort']): number {
  for (let i = 0; i < sort.length; i++) {
    const c = compareValues(a.keys[i], b.keys[i]);
    if (c !== 0) return sort[i].desc ? -c : c;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `_id`, `_rev`, `~class` and the named fields. */
export function project(doc: Doc, fields: string[] | undefined): Record<string, unknown> {
  if (!fields) return doc;
  const out: Record<string, unknown> = { _id: doc._id, _rev: doc._rev, '~class': doc['~class'] };
  for (const f of fields) if (Object.hasOwn(doc, f)) out[f] = doc[f];
  return out;
}
