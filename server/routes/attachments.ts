import express, { type Request, type Response } from 'express';
import type { NodeContext } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { ATTACHMENT_BODY_LIMIT_DEFAULT } from '../http-limits.js';
import { ApiWrite, authorizeWrite } from './api-access.js';
import { param, readableClass, stackRoute, storedDoc } from './docs.js';

/**
 * A document's files on the HTTP document API (docs/attachments.md), beside its JSON routes:
 *
 * - `GET    /api/private/docs/:class/:id/attachments/:name` — the bytes, with their content type;
 * - `PUT    …/attachments/:name` — the body is the file, its Content-Type the file's type;
 * - `DELETE …/attachments/:name`.
 *
 * Reads show what the caller may read (as the document routes do); writes pass the node's one
 * authorization check as an update of the document, then go through the pipeline (the class's
 * attachment rules, quotas counting the file's bytes) with the caller's session. A sealed file
 * cannot be read or written here: the node holds no key (DS_ENCRYPTION_LOCKED).
 */
export function createAttachmentsRouter(ctx: NodeContext): express.Router {
  const router = express.Router();
  const limit = Math.max(ctx.config.bodyLimit, ctx.config.attachmentBodyLimit ?? ATTACHMENT_BODY_LIMIT_DEFAULT);
  const raw = express.raw({ type: () => true, limit });
  const route = stackRoute(ctx);
  const PATH = '/:class/:id/attachments/:name';

  router.get(PATH, route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    await storedDoc(stack, caller, name, param(req, 'id'));
    const file = await stack.getAttachment(param(req, 'id'), param(req, 'name'));
    res.set('Content-Type', file.contentType);
    res.set('Content-Disposition', 'attachment'); // never rendered as a page of the node's origin
    res.set('ETag', `"${file.digest}"`);
    res.status(200).end(file.data as Uint8Array);
  }));

  router.put(PATH, raw, route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const previous = await storedDoc(stack, caller, name, param(req, 'id'));
    const type = req.get('content-type');
    if (!type) throw SERVER_ERRORS.requestInvalid('The file needs a Content-Type header (its MIME type).', { path: 'content-type' });
    if (!(req.body instanceof Uint8Array)) throw SERVER_ERRORS.requestInvalid('The body must be the file\'s bytes.');
    authorizeWrite(caller, name, previous, previous);
    const doc = await stack.putAttachment(previous._id, param(req, 'name'), req.body, type, { origin: 'local', session: new ApiWrite(caller) });
    res.status(201).json(doc);
  }));

  router.delete(PATH, route(async (stack, caller, req, res) => {
    const name = await readableClass(stack, caller, param(req, 'class'));
    const previous = await storedDoc(stack, caller, name, param(req, 'id'));
    authorizeWrite(caller, name, previous, previous);
    res.json(await stack.removeAttachment(previous._id, param(req, 'name'), { origin: 'local', session: new ApiWrite(caller) }));
  }));

  return router;
}
