import express, { type Request, type Response } from 'express';
import { CLASS_META, KERNEL_ERRORS, type ClientStack, type Doc, DOMAIN_META, type NewDoc, SELF_META } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { authorize, callerOf, canRead, type Caller } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { ApiWrite, authorizeWrite, enforceApiAccess } from './api-access.js';
import { createKeyedBatch, IDEMPOTENCY_HEADER, keyedBatch, REPLAYED_HEADER } from './bulk-idempotency.js';
import { NO_ATTACHMENTS } from '../replication/shapes.js';
import { TENANT_HEADER } from '../tenants/names.js';
import { comparePositions, encodeCursor, MAX_SORTED, parseListQuery, project, sortKeys, type ListQuery } from './docs-query.js';
import { remoteFindOptions, takeQuerySlot } from './query-limits.js';

/** Documents per `POST /:class/_bulk` (the body limit bounds it too). */
export const MAX_BULK = 10_000;

const META = new Set<string>([CLASS_META, DOMAIN_META, SELF_META]);

/**
 * The stack a request works on. The one place the document API picks its stack, so a node that
 * hosts several (one per tenant) switches it here.
 */
export function stackFor(ctx: NodeContext, _req: Request, res: Response): ClientStack {
  // the API serves the default database: a member of tenants reaches only their tenants'
  // databases (/db/<tenant>), here as on the replication endpoint
  authorize(callerOf(res), { type: 'default-stack' });
  const stack = ctx.stack();
  enforceApiAccess(stack); // once per stack: the taps that authorize SQL writes and filter its reads
  return stack;
}

/** The header that names the tenant a request works on (server/tenants/names.ts). */
export { TENANT_HEADER } from '../tenants/names.js';

/**
 * The stack a request works on: the tenant named by the `X-Docstack-Tenant` header (the caller
 * must be a member: DS_AUTHZ_TENANT; the stack is lent until the answer is sent), else the
 * default database (which a member of tenants may not reach).
 */
export async function stackForRequest(ctx: NodeContext, req: Request, res: Response): Promise<ClientStack> {
  const tenant = req.get(TENANT_HEADER);
  if (tenant === undefined || !ctx.stackFor) return stackFor(ctx, req, res);
  const lease = await ctx.stackFor(tenant, callerOf(res));
  res.once('close', () => lease.release());
  enforceApiAccess(lease.stack);
  return lease.stack;
}

/** A class the caller may read documents of: not a meta-class, and readable by replication's rule. */
export async function readableClass(stack: ClientStack, caller: Caller, name: string): Promise<string> {
  if (META.has(name) || !canRead(caller, `${name}-x`)) throw KERNEL_ERRORS.classNotFound(`There is no class named ${JSON.stringify(name)}.`, { details: { className: name } });
  return (await stack.requireClass(name)).name;
}

/** The stored document `id` of class `name`, active and readable, else DS_DOC_NOT_FOUND (raw: no afterRead). */
export async function storedDoc(stack: ClientStack, caller: Caller, name: string, id: string): Promise<Doc> {
  const doc = canRead(caller, id) ? await stack.storage.get(id) : null;
  if (!doc || doc['~class'] !== name || doc.active === false || stack.hooks.hidden.call(doc, { stack })) throw KERNEL_ERRORS.docNotFound(`There is no active ${name} with the id ${JSON.stringify(id)}.`, { details: { id } });
  return doc;
}

function body(req: Request): Record<string, unknown> {
  if (!isPlainObject(req.body)) throw SERVER_ERRORS.requestInvalid('The body must be a JSON object.');
  return req.body;
}

/** A document sent for class `name`: `~class` may be repeated, never another class. */
function newDoc(name: string, input: unknown, path = ''): Record<string, unknown> {
  if (!isPlainObject(input)) throw SERVER_ERRORS.requestInvalid('A document must be a JSON object.', { path: path || undefined });
  if (input['~class'] !== undefined && input['~class'] !== name) {
    throw SERVER_ERRORS.requestInvalid(`A document sent to /${name} belongs to ${name}; leave out "~class" or repeat it.`, { path: `${path}~class` });
  }
  // an id is a string or absent (then generated): 1, null or {} is no id to replace silently
  if (input._id !== undefined && (typeof input._id !== 'string' || input._id === '')) {
    throw SERVER_ERRORS.requestInvalid('_id must be a non-empty string, or left out for a generated one.', { path: `${path}_id` });
  }
  refuseAttachments(input, path);
  return { ...input, '~class': name };
}

/** Attachments are refused here as over replication: no attribute type stores binary data. */
function refuseAttachments(input: Record<string, unknown>, path = ''): void {
  if (input._attachments !== undefined) throw SERVER_ERRORS.requestInvalid(NO_ATTACHMENTS, { path: `${path}_attachments` });
}

async function list(stack: ClientStack, name: string, caller: Caller, query: ListQuery, remote: ReturnType<typeof remoteFindOptions>) {
  const { selector, fields, sort, limit, cursor } = query;
  let docs: Doc[];
  if (sort.length === 0) {
    // `_id` order: the cursor is where the class range starts again
    docs = await stack.findDocuments(name, selector, { limit: limit + 1, ...remote, ...(cursor ? { after: cursor.id } : {}) });
  } else {
    const all = await stack.findDocuments(name, selector, { limit: MAX_SORTED + 1, ...remote });
    if (all.length > MAX_SORTED) throw KERNEL_ERRORS.queryInvalid(`A sorted listing sorts in memory, at most ${MAX_SORTED} documents: narrow q.`, { path: 'sort' });
    const positioned = all.map((doc) => ({ doc, keys: sortKeys(doc, sort), id: doc._id })).sort((a, b) => comparePositions(a, b, sort));
    const after = cursor ? { id: cursor.id, keys: cursor.keys ?? [] } : null;
    docs = positioned.filter((p) => !after || comparePositions(p, after, sort) > 0).slice(0, limit + 1).map((p) => p.doc);
  }
  const visible = docs.filter((d) => canRead(caller, d._id));
  const page = visible.slice(0, limit);
  const last = page[page.length - 1];
  const next = docs.length > limit && last ? encodeCursor(sort.length > 0 ? { id: last._id, keys: sortKeys(last, sort) } : { id: last._id }) : null;
  return { docs: page.map((d) => project(d, fields)), next };
}

/** A route handler of the document API: the request's stack (tenant) and caller, its errors answered as the API's. */
export function stackRoute(ctx: NodeContext) {
  return (handler: (stack: ClientStack, caller: Caller, req: Request, res: Response) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        await handler(await stackForRequest(ctx, req, res), callerOf(res), req, res);
      } catch (err) {
        sendError(res, err, ctx.log);
      }
    };
}

/** A route parameter as a string. */
export const param = (req: Request, key: string): string => String(req.params[key]);

/**
 * The HTTP document API (docs/server.md#http-document-api), mounted at /api/private/docs behind
 * requireSession. Writes go through the pipeline with origin `local` and the caller's session
 * (ApiWrite), after the node's one authorization check; reads show what replication would.
 */
export function createDocsRouter(ctx: NodeContext): express.Router {
  const router = express.Router();
  const route = stackRoute(ctx);

  router.get('/:class', route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const query = parseListQuery(req.query as Record<string, unknown>);
    // a selector or a sort may read the whole class: one of the caller's query slots (429 past them)
    if (query.selector || query.sort.length > 0) takeQuerySlot(ctx, res);
    res.json(await list(stack, name, caller, query, remoteFindOptions(ctx, res)));
  }));

  router.post('/:class/_bulk', route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const { docs } = body(req);
    if (!Array.isArray(docs) || docs.length === 0 || docs.length > MAX_BULK) throw SERVER_ERRORS.requestInvalid(`The body must be { "docs": [ …1 to ${MAX_BULK} documents ] }.`, { path: 'docs' });
    const drafts = docs.map((d, i) => newDoc(name, d, `docs.${i}.`));
    for (const draft of drafts) authorizeWrite(caller, name, draft);
    const create = (list: Record<string, unknown>[]) => stack.createDocs(list as never[], { origin: 'local', session: new ApiWrite(caller) });
    const keyed = keyedBatch(req.get(IDEMPOTENCY_HEADER), caller, name, drafts);
    if (!keyed) return void res.status(201).json({ docs: await create(drafts) });
    // with an Idempotency-Key, a retry after a crash completes the batch (bulk-idempotency.ts)
    const { docs: answered, replayed } = await createKeyedBatch(stack, keyed, create);
    if (replayed) res.set(REPLAYED_HEADER, 'true');
    res.status(201).json({ docs: answered });
  }));

  router.get('/:class/:id', route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    await storedDoc(stack, caller, name, param(req, 'id'));
    const doc = await stack.getDocument(param(req, 'id'));
    if (!doc) throw KERNEL_ERRORS.docNotFound(`There is no active ${name} with the id ${JSON.stringify(param(req, 'id'))}.`, { details: { id: param(req, 'id') } });
    res.json(doc);
  }));

  router.post('/:class', route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const draft = newDoc(name, body(req));
    authorizeWrite(caller, name, draft);
    const created = await stack.createDoc(draft as NewDoc, { origin: 'local', session: new ApiWrite(caller) });
    res.status(201).location(`${req.baseUrl}/${encodeURIComponent(name)}/${encodeURIComponent(created._id)}`).json(created);
  }));

  router.patch('/:class/:id', route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const previous = await storedDoc(stack, caller, name, param(req, 'id'));
    const changes = body(req);
    refuseAttachments(changes);
    const ifMatch = req.get('if-match')?.replace(/"/g, '');
    authorizeWrite(caller, name, { ...previous, ...changes }, previous);
    const updated = await stack.updateDoc(previous._id, ifMatch ? { ...changes, _rev: ifMatch } : changes, { origin: 'local', session: new ApiWrite(caller) });
    res.json(updated);
  }));

  router.delete('/:class/:id', route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const previous = await storedDoc(stack, caller, name, param(req, 'id'));
    const rev = req.get('if-match')?.replace(/"/g, '') ?? (typeof req.query.rev === 'string' ? req.query.rev : undefined);
    if (rev !== undefined && rev !== previous._rev) {
      throw KERNEL_ERRORS.docConflict(`"${previous._id}" is at another revision than the one given; read it again and retry.`, { path: '_rev', details: { id: previous._id } });
    }
    authorizeWrite(caller, name, previous, previous);
    res.json(await stack.deleteDocument(previous._id, { origin: 'local', session: new ApiWrite(caller) }));
  }));

  return router;
}
