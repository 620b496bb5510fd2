import type { Request, Response } from 'express';
import type { ClientStack } from '../../index.js';
import { sendError } from './http.js';
import { readableBy } from './policy.js';
import { isRev } from './shapes.js';

/**
 * `GET /:name/:id/:attachment?rev=`: one file's stored bytes, as PouchDB's replicator fetches
 * each attachment of a revision it pulls (`getAttachment`). The caller must be able to read the
 * document; the bytes are what storage holds (a sealed file stays sealed: the node has no key).
 */
export async function getAttachmentBytes(stack: ClientStack, req: Request, res: Response): Promise<void> {
  const id = req.params.id as string;
  const name = req.params.attachment as string;
  if (!(await readableBy(stack, res))(id)) return sendError(res, 404, 'not_found', 'missing');
  const rev = req.query.rev;
  if (rev !== undefined && !isRev(rev)) return sendError(res, 400, 'bad_request', 'rev must be a revision such as "1-abc".');
  const doc = await stack.storage.replication.get(id, rev !== undefined ? { rev } : {}).catch(() => null);
  const stub = (doc?._attachments as Record<string, { content_type?: string; digest?: string }> | undefined)?.[name];
  const bytes = stub ? await stack.storage.attachment(id, name, doc!._rev) : null;
  if (!bytes) return sendError(res, 404, 'not_found', 'missing');
  res.set('Content-Type', stub!.content_type ?? 'application/octet-stream');
  if (stub!.digest) res.set('Content-MD5', stub!.digest.replace(/^md5-/, ''));
  res.status(200).end(bytes);
}
