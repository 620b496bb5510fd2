import express, { type NextFunction, type Request, type Response } from 'express';
import type { ClientStack } from '../../index.js';
import type { NodeContext } from '../context.js';
import { handleChanges } from './changes.js';
import { allDocs, bulkDocs, bulkGet, deleteLocal, getDoc, getLocal, guarded, putDoc, putLocal, revsDiff } from './documents.js';
import { sendError, sendPouchError } from './http.js';
import { getAttachmentBytes } from './attachments.js';
import { authorize, callerOf } from '../authorization/index.js';
import { isTenantName } from '../tenants/names.js';
import { visibleDocCount } from './doc-count.js';
import { sendError as renderError } from '../errors.js';
import { jsonBodies } from '../http-limits.js';
import { SURFACE_ERRORS } from '../errors-surface.js';

/** A request that carries a body (a length above 0, or a chunked one). */
function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return length !== undefined ? length !== '0' : req.get('transfer-encoding') !== undefined;
}

const NODE_ID_DOC = '_local/~replication-node';
type NodeIdDoc = { _id: string; uuid: string };
// one id per stack store, read once: PouchDB names its checkpoints after the peers' ids, so it
// must survive restarts or every replication would start again from zero
const nodeIds = new WeakMap<ClientStack, Promise<string>>();

function nodeIdOf(stack: ClientStack): Promise<string> {
  let id = nodeIds.get(stack);
  if (!id) {
    id = (async () => {
      const stored = await stack.storage.get<NodeIdDoc>(NODE_ID_DOC);
      if (stored) return stored.uuid;
      const uuid = globalThis.crypto.randomUUID().replace(/-/g, '');
      await stack.storage.put({ _id: NODE_ID_DOC, uuid }).catch(() => undefined); // another request's won
      const saved = await stack.storage.get<NodeIdDoc>(NODE_ID_DOC);
      if (!saved) throw new Error('The node id could not be stored.');
      return saved.uuid;
    })();
    id.catch(() => nodeIds.delete(stack));
    nodeIds.set(stack, id);
  }
  return id;
}

/**
 * The CouchDB replication protocol over the stacks this node hosts, as stock PouchDB's http
 * adapter and replicator use it. Mounted at `/db` behind the auth middleware. Everything is
 * served by the stack's own PouchDB (changes, revsDiff, bulkGet, allDocs, get, bulkDocs with
 * `new_edits: false`) so revision trees stay exact; writes go through acceptBulkDocs.
 */
export function createReplicationRouter(ctx: NodeContext): express.Router {
  const router = express.Router();
  // bodies are JSON only, what PouchDB sends: a text/plain body (what an HTML form on another
  // site can send without CORS) is refused, never read as JSON (415 DS_REQUEST_CONTENT_TYPE)
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req) || req.is('application/json')) return next();
    renderError(res, SURFACE_ERRORS.contentType(`The replication endpoint reads application/json bodies only (got ${JSON.stringify(String(req.get('content-type') ?? 'none').slice(0, 100))}).`));
  });
  // a no-op when the node already parsed the body
  router.use(jsonBodies(ctx.config));

  /**
   * The stack served under `:name`, lent to the request: the node's own stack, or a tenant's
   * (server/tenants) for its members and admins — 403 for anyone else, 404 for a name the
   * class model declares no tenant of. Answers the refusal itself and returns null.
   */
  const stackFor = async (req: Request, res: Response): Promise<{ stack: ClientStack; release(): void } | null> => {
    const name = req.params.name as string;
    try {
      if (name === ctx.config.stackName) {
        authorize(callerOf(res), { type: 'default-stack' });
        return { stack: ctx.stack(), release: () => undefined };
      }
      if (!ctx.tenants || !isTenantName(name)) {
        sendError(res, 404, 'database', `This node hosts no database named ${JSON.stringify(name)}.`);
        return null;
      }
      // membership first: a caller who is not a member learns nothing about which tenants exist
      authorize(callerOf(res), { type: 'tenant', tenant: name });
      return await ctx.tenants.lease(name);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'DS_TENANT_NOT_FOUND') {
        sendError(res, 404, 'database', `This node hosts no database named ${JSON.stringify(name)}.`);
      } else if (code === 'DS_STACK_CLOSED') {
        res.set('Retry-After', '5');
        sendError(res, 503, 'unavailable', 'The node is starting.');
      } else {
        sendPouchError(res, err);
      }
      return null;
    }
  };
  const on =
    (handler: (stack: ClientStack, req: Request, res: Response) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      const lease = await stackFor(req, res);
      if (!lease) return;
      try {
        await guarded(handler)(lease.stack, req, res);
      } finally {
        lease.release();
      }
    };

  // the "server root" of the http adapter's URL: PouchDB reads its uuid to name checkpoints
  router.get('/', async (_req, res) => {
    const uuid = await nodeIdOf(ctx.stack()).catch(() => ctx.config.stackName);
    res.json({ couchdb: 'Welcome', vendor: { name: 'docstack' }, version: '3.3.3', uuid });
  });

  const info = on(async (stack, req, res) => {
    const { docCount, updateSeq } = await stack.storage.info();
    // never the storage path: it would tell a peer where the node keeps its files; the count of
    // what this caller can read, not of documents hidden from them
    const count = await visibleDocCount(stack, callerOf(res), docCount, updateSeq);
    res.json({ db_name: req.params.name, doc_count: count, update_seq: updateSeq, purge_seq: 0, instance_start_time: '0' });
  });
  router.get('/:name', info);
  router.head('/:name', info);
  // what CouchDB answers for an existing database (PouchDB's setup treats 412 as "exists")
  router.put('/:name', on(async (_s, req, res) => sendError(res, 412, 'file_exists', `The database ${req.params.name} already exists.`)));
  router.delete('/:name', on(async (_s, _req, res) => sendError(res, 403, 'forbidden', 'A hosted database cannot be deleted over replication.')));

  // a waiting longpoll answers when the node starts stopping: its drain waits for in-flight requests
  const changes = on((stack, req, res) => handleChanges(stack, req, res, ctx.events));
  router.get('/:name/_changes', changes);
  router.post('/:name/_changes', changes);
  router.post('/:name/_revs_diff', on(revsDiff));
  router.post('/:name/_bulk_get', on(bulkGet));
  router.get('/:name/_all_docs', on(allDocs));
  router.post('/:name/_all_docs', on(allDocs));
  router.post('/:name/_bulk_docs', on(bulkDocs));
  // leveldb writes are durable when bulkDocs answers: nothing to flush
  router.post('/:name/_ensure_full_commit', on(async (_s, _req, res) => void res.status(201).json({ ok: true, instance_start_time: '0' })));
  router.get('/:name/_local/:id', on(getLocal));
  router.put('/:name/_local/:id', on(putLocal));
  router.delete('/:name/_local/:id', on(deleteLocal));
  router.all('/:name/_design/*rest', on(async (_s, _req, res) => sendError(res, 403, 'forbidden', 'Design documents are not served: they could carry code.')));
  router.all('/:name/:id', (req: Request, res: Response, next: NextFunction) => {
    if ((req.params.id as string).startsWith('_')) return sendError(res, 404, 'route', `${req.params.id} is not served here.`);
    next();
  });
  router.get('/:name/:id', on(getDoc));
  router.put('/:name/:id', on(putDoc));
  router.get('/:name/:id/:attachment', on(getAttachmentBytes));
  router.use((_req: Request, res: Response) => sendError(res, 405, 'method_not_allowed', 'Not part of the replication protocol served here.'));
  return router;
}
