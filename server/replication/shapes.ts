/**
 * Shape checks for what a peer sends to the replication endpoint, run before PouchDB sees it.
 * PouchDB trusts its caller: a non-string attachment `data`, a non-array `open_revs` or an
 * unknown `rev` with `latest` make it throw inside a callback (which ends the process) or never
 * answer. Whatever a check here refuses is a 400 (or a per-document `bad_request`), never a
 * call into storage.
 */

import { isBase64 } from '../../kit/index.js';

/** Nesting deeper than this is refused: PouchDB walks documents recursively. */
export const MAX_DEPTH = 100;
/** Revisions per `_revs_diff` id, `open_revs` list and `_revisions.ids`. */
export const MAX_REVS = 1000;

const REV = /^[1-9][0-9]{0,15}-[0-9a-zA-Z]{1,64}$/;

export function isRev(value: unknown): value is string {
  return typeof value === 'string' && REV.test(value);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Depth of a JSON value, measured without recursion (a 150k-deep value must not overflow us). */
export function depthExceeds(value: unknown, limit = MAX_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * The refusal of `_attachments` in a document body of the document API (DS_REQUEST_INVALID): a
 * file is written with its own route (PUT …/attachments/:name), never inside the JSON.
 */
export const NO_ATTACHMENTS = 'Attachments are written with PUT /api/private/docs/:className/:id/attachments/:name, not in a document body (_attachments is not accepted here).';

/** The fields PouchDB sends for one attachment: a new file (`data`) or a kept one (`stub`). */
const ATTACHMENT_FIELDS = new Set(['content_type', 'data', 'digest', 'revpos', 'length', 'stub']);

/**
 * Why a peer's `_attachments` is malformed, or null: PouchDB decodes `data` inside a callback,
 * where anything but base64 text ends the process. What a file may be (its name an attachment
 * attribute, its type, its size) is the class's to say: the engine's attachments part checks it.
 */
export function malformedAttachments(attachments: unknown): string | null {
  if (!isPlainObject(attachments)) return '_attachments must be an object of files by name.';
  for (const [name, entry] of Object.entries(attachments)) {
    if (name === '' || name.length > 64 || name.startsWith('_')) return `An attachment name must be 1 to 64 characters, not starting with "_" (got ${JSON.stringify(name.slice(0, 100))}).`;
    if (!isPlainObject(entry)) return `The attachment "${name}" must be an object { content_type, data }.`;
    const unknown = Object.keys(entry).find((key) => !ATTACHMENT_FIELDS.has(key));
    if (unknown !== undefined) return `"${unknown.slice(0, 100)}" is not an attachment field the node accepts.`;
    if (typeof entry.content_type !== 'string' || entry.content_type.length > 255) return `The attachment "${name}" needs a content_type (text).`;
    if (entry.digest !== undefined && (typeof entry.digest !== 'string' || !/^md5-[A-Za-z0-9+/=]{1,64}$/.test(entry.digest))) return `The digest of "${name}" must be md5-<base64>.`;
    if (entry.revpos !== undefined && !Number.isSafeInteger(entry.revpos)) return `The revpos of "${name}" must be a whole number.`;
    if (entry.length !== undefined && !Number.isSafeInteger(entry.length)) return `The length of "${name}" must be a whole number.`;
    if (entry.stub === true) {
      if (entry.data !== undefined) return `The attachment "${name}" is a stub: it carries no data.`;
      if (typeof entry.digest !== 'string') return `The stub "${name}" needs the digest of the file it keeps.`;
      continue;
    }
    if (entry.stub !== undefined) return `"stub" of "${name}" must be true or absent.`;
    if (typeof entry.data !== 'string' || !isBase64(entry.data)) return `The data of "${name}" must be base64 text.`;
  }
  return null;
}

/**
 * Why a document a peer writes is malformed, or null. Its `_attachments` are shape-checked here
 * (malformedAttachments); the class's rules for them run in the engine, as for a local write.
 */
export function malformedDoc(doc: unknown, newEdits: boolean): string | null {
  if (!isPlainObject(doc)) return 'A document must be a JSON object.';
  // a file's data is one long string, never deep: the attachments are measured on their own
  const { _attachments: attachments, ...body } = doc;
  if (depthExceeds(body)) return `A document may nest at most ${MAX_DEPTH} levels deep.`;
  if (attachments !== undefined) {
    const problem = malformedAttachments(attachments);
    if (problem) return problem;
  }
  const localRev = typeof doc._id === 'string' && doc._id.startsWith('_local/') && typeof doc._rev === 'string' && /^0-[0-9]{1,16}$/.test(doc._rev);
  if (doc._rev !== undefined && !isRev(doc._rev) && !localRev) return '_rev must be a revision such as "1-abc".';
  if (!newEdits && doc._rev === undefined) return 'With new_edits: false, every document needs its _rev.';
  if (doc._deleted !== undefined && typeof doc._deleted !== 'boolean') return '_deleted must be true or false.';
  if (doc._revisions !== undefined) {
    const r = doc._revisions;
    const ok =
      isPlainObject(r) &&
      Number.isSafeInteger(r.start) &&
      (r.start as number) > 0 &&
      Array.isArray(r.ids) &&
      r.ids.length > 0 &&
      r.ids.length <= MAX_REVS &&
      r.ids.every((id) => typeof id === 'string' && /^[0-9a-zA-Z]{1,64}$/.test(id));
    if (!ok) return '_revisions must be { start: a positive whole number, ids: a non-empty list of revision hashes }.';
  }
  for (const key of Object.keys(doc)) {
    if (key.startsWith('_') && !['_id', '_rev', '_deleted', '_revisions', '_attachments'].includes(key)) return `"${key}" is not a document field the node accepts.`;
  }
  return null;
}

/** A `_revs_diff` body: `{ id: [rev, …] }`; the reason it is malformed, or null. */
export function malformedRevsDiff(body: unknown): string | null {
  if (!isPlainObject(body)) return '_revs_diff needs a JSON object { id: [revisions] }.';
  for (const [id, revs] of Object.entries(body)) {
    if (!Array.isArray(revs) || revs.length > MAX_REVS || !revs.every(isRev)) {
      return `_revs_diff: the value for ${JSON.stringify(id.slice(0, 100))} must be a list of at most ${MAX_REVS} revisions.`;
    }
  }
  return null;
}

/** `open_revs`: "all" or a JSON list of revisions; the parsed value, or an Error with the reason. */
export function parseOpenRevs(raw: unknown): 'all' | string[] | Error {
  if (raw === 'all') return 'all';
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return new Error('open_revs must be "all" or a JSON list of revisions.');
    }
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REVS || !value.every(isRev)) {
    return new Error(`open_revs must be "all" or a JSON list of 1 to ${MAX_REVS} revisions.`);
  }
  return value;
}

/** A `_bulk_get` entry: `{ id, rev? }`; the reason it is malformed, or null. */
export function malformedBulkGetEntry(entry: unknown): string | null {
  if (!isPlainObject(entry) || typeof entry.id !== 'string' || entry.id === '') return '_bulk_get entries are { id, rev? } with a string id.';
  if (entry.rev !== undefined && !isRev(entry.rev)) return '_bulk_get: rev must be a revision such as "1-abc".';
  if (entry.atts_since !== undefined && !(Array.isArray(entry.atts_since) && entry.atts_since.every(isRev))) return '_bulk_get: atts_since must be a list of revisions.';
  return null;
}

/** A `since` for `_changes`: "now", a sequence number, or an opaque sequence string. */
export function parseSince(raw: unknown): number | string | Error {
  if (raw === undefined || raw === '') return 0;
  if (raw === 'now') return 'now';
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return raw;
  if (typeof raw === 'string' && /^[0-9]{1,16}$/.test(raw)) return Number(raw);
  if (typeof raw === 'string' && raw.length <= 200 && /^[0-9]+-[A-Za-z0-9_-]+$/.test(raw)) return raw;
  // a class-scoped first pull's cursor (server/replication/class-snapshot.ts): ids can be long
  if (typeof raw === 'string' && raw.length <= 2820 && /^[0-9]{1,16}-r[A-Za-z0-9_-]+$/.test(raw)) return raw;
  return new Error('since must be "now" or a sequence the node answered with.');
}

/** Keys of `_all_docs`: document ids, so strings only. */
export function isIdKey(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 1000;
}
