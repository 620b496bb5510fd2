import type { Request, Response } from 'express';
import type { ClientStack, DocstackError, ReplicationAllDocsOptions, ReplicationGetOptions } from '../../index.js';
import { acceptBulkDocs } from './accept.js';
import { boolParam, intParam, jsonParam, sendError, sendPouchError } from './http.js';
import { authorize, callerOf, classifyWrite } from '../authorization/index.js';
import { isPublishedLocalId, isReservedLocalId, readableBy } from './policy.js';
import { forgetPeerLocal, putPeerLocal } from './peer-locals.js';
import { depthExceeds, isIdKey, isRev, malformedBulkGetEntry, malformedRevsDiff, parseOpenRevs } from './shapes.js';

type Handler = (stack: ClientStack, req: Request, res: Response) => Promise<void>;
type Row = { id?: string; key?: string; error?: string };

const notFound = (res: Response) => sendError(res, 404, 'not_found', 'missing');

/** Wraps a handler so every failure is a CouchDB-shaped JSON error. */
export const guarded =
  (handler: Handler): Handler =>
  async (stack, req, res) => {
    try {
      await handler(stack, req, res);
    } catch (err) {
      sendPouchError(res, err);
    }
  };

function body(req: Request): Record<string, unknown> {
  return req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
}

const badRequest = (res: Response, reason: string) => sendError(res, 400, 'bad_request', reason);

export const revsDiff: Handler = async (stack, req, res) => {
  const malformed = malformedRevsDiff(req.body);
  if (malformed) return badRequest(res, malformed);
  res.json(await stack.storage.replication.revsDiff(body(req) as Record<string, string[]>));
};

export const bulkGet: Handler = async (stack, req, res) => {
  const docs = body(req).docs;
  if (!Array.isArray(docs)) return sendError(res, 400, 'bad_request', '_bulk_get needs { docs: [...] }.');
  const malformed = docs.map(malformedBulkGetEntry).find((why) => why !== null);
  if (malformed) return badRequest(res, malformed);
  const readable = await readableBy(stack, res);
  const visible = docs.filter((d) => readable(d.id));
  // PouchDB's bulkGet never answers an empty list: nothing visible is answered here, at once
  const result: { results: unknown[] } = visible.length === 0 ? { results: [] } : await stack.storage.replication.bulkGet({
    docs: visible,
    revs: boolParam(req.query.revs) ?? false,
    latest: boolParam(req.query.latest) ?? false,
    attachments: boolParam(req.query.attachments) ?? false,
  });
  // PouchDB's misses carry its error object (a stack trace with the node's paths): CouchDB's shape instead
  const cleaned = result.results.map((r, i) => couchShaped(r, visible[i]));
  // nothing hidden (a replication's usual batch): the answer in the order asked
  if (visible.length === docs.length) return void res.json({ results: cleaned });
  // hidden ids answer as missing, in the place the client asked for them
  const answers = new Map(visible.map((d, i) => [d, cleaned[i]]));
  const results = docs.map((d) => answers.get(d) ?? { id: d?.id, docs: [missing(d)] });
  res.json({ results });
};

type BulkGetEntry = { id?: unknown; rev?: unknown };

/** CouchDB's answer for an id or revision not here: `{ error: { id, rev, error: 'not_found', reason: 'missing' } }`. */
const missing = (asked: BulkGetEntry | undefined) => ({ error: { id: asked?.id, rev: typeof asked?.rev === 'string' ? asked.rev : 'undefined', error: 'not_found', reason: 'missing' } });

/**
 * One result of PouchDB's bulkGet with its errors in CouchDB's shape (PouchDB's carry a stack
 * trace). `ok` documents and `{ missing: rev }` (a revision compacted away, which the replicator
 * skips without failing its batch) pass as they are.
 */
function couchShaped(result: unknown, asked: BulkGetEntry | undefined): unknown {
  const r = result as { id?: unknown; docs?: unknown[] } | undefined;
  if (!r || !Array.isArray(r.docs)) return { id: asked?.id, docs: [missing(asked)] };
  const kept = (entry: unknown) => entry !== null && typeof entry === 'object' && ('ok' in entry || (typeof (entry as { missing?: unknown }).missing === 'string' && !('error' in entry)));
  return { id: r.id, docs: r.docs.map((entry) => (kept(entry) ? entry : missing(asked))) };
}

export const allDocs: Handler = async (stack, req, res) => {
  const q = { ...(req.query as Record<string, unknown>), ...body(req) };
  const options: ReplicationAllDocsOptions = {};
  for (const key of ['include_docs', 'conflicts', 'descending', 'inclusive_end', 'update_seq', 'attachments'] as const) {
    const value = boolParam(q[key]);
    if (value !== undefined) options[key] = value;
  }
  for (const key of ['limit', 'skip'] as const) {
    const value = intParam(q[key]);
    if (value !== undefined) options[key] = value;
  }
  for (const [from, to] of [['startkey', 'startkey'], ['start_key', 'startkey'], ['endkey', 'endkey'], ['end_key', 'endkey'], ['key', 'key']] as const) {
    if (q[from] === undefined) continue;
    const value = jsonParam(q[from]);
    if (!isIdKey(value)) return badRequest(res, `_all_docs: ${to} must be a document id (a string).`);
    options[to] = value;
  }
  const keys = jsonParam(q.keys);
  if (keys !== undefined && !(Array.isArray(keys) && keys.length <= 10_000 && keys.every(isIdKey))) return badRequest(res, '_all_docs: keys must be a JSON list of document ids.');
  if (Array.isArray(keys)) options.keys = keys;
  const result: { rows: Row[] } = await stack.storage.replication.allDocs(options);
  const readable = await readableBy(stack, res);
  result.rows = result.rows.map((row) => (row.id && !readable(row.id) ? { key: row.key, error: 'not_found' } : row)).filter((row) => !(row.error && !options.keys));
  res.json(result);
};

export const bulkDocs: Handler = async (stack, req, res) => {
  const { docs, new_edits: newEdits } = body(req);
  if (!Array.isArray(docs)) return sendError(res, 400, 'bad_request', '_bulk_docs needs { docs: [...] }.');
  if (newEdits !== undefined && typeof newEdits !== 'boolean') return badRequest(res, 'new_edits must be true or false.');
  // each document is authorized, then shape-checked, then validated: a refused one gets its own
  // line (forbidden / bad_request) and the others of the batch go on
  res.status(201).json(await acceptBulkDocs(stack, docs, newEdits !== false, callerOf(res)));
};

/** `GET /:id` with rev / revs / open_revs / latest / conflicts / attachments, as PouchDB asks. */
export const getDoc: Handler = async (stack, req, res) => {
  const id = req.params.id as string;
  if (!(await readableBy(stack, res))(id)) return notFound(res);
  const q = req.query as Record<string, unknown>;
  const options: ReplicationGetOptions = {};
  for (const key of ['revs', 'revs_info', 'conflicts', 'latest', 'attachments', 'deleted_conflicts', 'local_seq'] as const) {
    const value = boolParam(q[key]);
    if (value !== undefined) options[key] = value;
  }
  if (q.rev !== undefined) {
    if (!isRev(q.rev)) return badRequest(res, 'rev must be a revision such as "1-abc".');
    options.rev = q.rev;
  }
  const { replication } = stack.storage;
  if (q.open_revs !== undefined) {
    const openRevs = parseOpenRevs(q.open_revs);
    if (openRevs instanceof Error) return badRequest(res, openRevs.message);
    return void res.json(await replication.openRevs(id, openRevs, options));
  }
  // PouchDB never answers `latest` for a revision it does not have: look it up first
  if (options.latest && options.rev) {
    const [found] = await replication.openRevs(id, [options.rev]);
    if (!found || !('ok' in found)) return notFound(res);
  }
  res.json(await replication.get(id, options));
};

/** `PUT /:id`: one document, through the same checks as `_bulk_docs`. */
export const putDoc: Handler = async (stack, req, res) => {
  if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) return badRequest(res, 'A document must be a JSON object.');
  const doc: Record<string, unknown> = { ...body(req), _id: req.params.id as string };
  if (req.query.rev !== undefined) doc._rev = req.query.rev;
  const newEdits = req.query.new_edits !== 'false';
  const [result] = await acceptBulkDocs(stack, [doc], newEdits, callerOf(res));
  if (result?.error) {
    const status = result.error === 'forbidden' ? 403 : result.error === 'conflict' ? 409 : 400;
    return void res.status(status).json({ error: result.error, reason: result.reason ?? '', ...(result.code ? { code: result.code } : {}) });
  }
  res.status(201).json(result ?? { ok: true, id: doc._id });
};

/** `_local/:id`: replication checkpoints. The engine's own `_local/~…` indexes are off limits. */
export const getLocal: Handler = async (stack, req, res) => {
  const id = req.params.id as string;
  if (isReservedLocalId(id) && !isPublishedLocalId(id)) return notFound(res);
  res.json(await stack.storage.replication.getLocal(id));
};

/** The engine's own `_local/~…` documents go through the one authorization check like any write. */
function refuseLocalWrite(res: Response, id: string): boolean {
  try {
    authorize(callerOf(res), { type: 'write', subject: classifyWrite(`_local/${id}`, {}) });
    return false;
  } catch (err) {
    sendPouchError(res, err);
    return true;
  }
}

export const putLocal: Handler = async (stack, req, res) => {
  const id = req.params.id as string;
  if (refuseLocalWrite(res, id)) return;
  if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body) || depthExceeds(req.body)) return badRequest(res, 'A checkpoint must be a JSON object of modest depth.');
  if ((req.body as Record<string, unknown>)._attachments !== undefined) return badRequest(res, 'Checkpoints carry no attachments.');
  if ((req.body as Record<string, unknown>)._rev !== undefined && !isRev((req.body as Record<string, unknown>)._rev) && !/^0-[0-9]{1,16}$/.test(String((req.body as Record<string, unknown>)._rev))) return badRequest(res, '_rev must be a revision.');
  res.status(201).json(await putPeerLocal(stack, callerOf(res), id, body(req), () => stack.storage.replication.putLocal(id, body(req))));
};

export const deleteLocal: Handler = async (stack, req, res) => {
  const id = req.params.id as string;
  if (refuseLocalWrite(res, id)) return;
  const rev = typeof req.query.rev === 'string' ? req.query.rev : undefined;
  if (req.query.rev !== undefined && (typeof rev !== 'string' || !/^[0-9]{1,16}-[0-9a-zA-Z]{1,64}$/.test(rev))) return badRequest(res, 'rev must be a revision.');
  res.json(await forgetPeerLocal(stack, callerOf(res), id, () => stack.storage.replication.removeLocal(id, rev)));
};
