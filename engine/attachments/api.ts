import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { ATTACHMENT_ERRORS } from './errors.js';
import type { ClassModel, Doc } from '../../contracts/model.js';
import type { KernelHooks } from '../../kernel/hooks.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Storage } from '../../storage/facade.js';
import { attachmentAttribute, checkContentType, checkSize } from './check.js';
import { bytesOf, bytesToBase64, platformData, type AttachmentData, type AttachmentInput } from './bytes.js';

/** An attachment read back: a Blob in a browser, a Buffer (a Uint8Array) in Node. */
export interface Attachment {
  name: string;
  contentType: string;
  /** bytes of `data` (the plaintext of a sealed one) */
  length: number;
  digest: string;
  data: AttachmentData;
}

interface Stub {
  content_type?: unknown;
  digest?: unknown;
  length?: unknown;
  stub?: unknown;
}

/**
 * The `_attachments` of a document with one file set: the caller's data checked against its
 * attribute (name, type, size) before anything is written, as base64 (the form every adapter
 * stores and the pipeline's taps — the encryption plugin's seal — read).
 */
export async function withAttachment(previous: Doc, model: ClassModel, name: string, data: AttachmentInput, type: string): Promise<Record<string, unknown>> {
  const path = `_attachments.${String(name)}`;
  const attribute = attachmentAttribute(model, name);
  checkContentType(attribute, type, path);
  const bytes = typeof data === 'string' ? null : await bytesOf(data);
  if (!bytes) {
    throw ATTACHMENT_ERRORS.attachmentInvalid(`The data of "${name}" must be a Blob (in a browser), a Buffer or Uint8Array (in Node), or an ArrayBuffer.`, { path });
  }
  checkSize(attribute, bytes.byteLength, path);
  return { ...((previous._attachments ?? {}) as Record<string, unknown>), [name]: { content_type: type, data: bytesToBase64(bytes) } };
}

/** The `_attachments` of a document with one file removed; DS_ATTACHMENT_NOT_FOUND when it has none of that name. */
export function withoutAttachment(previous: Doc, name: string): Record<string, unknown> {
  const { [name]: removed, ...rest } = (previous._attachments ?? {}) as Record<string, unknown>;
  if (removed === undefined) throw notFound(previous._id, name);
  return rest;
}

const notFound = (id: string, name: string) =>
  ATTACHMENT_ERRORS.attachmentNotFound(`${id} has no attachment named ${JSON.stringify(name)}.`, { path: `_attachments.${String(name)}`, details: { id, name } });

export interface AttachmentReadDeps {
  stack: StackPort;
  storage: Storage;
  hooks: KernelHooks;
}

/** An attachment of a readable document (as getDocument reads), opened by the attachmentRead taps (decryption). */
export async function readAttachment(deps: AttachmentReadDeps, id: string, name: string): Promise<Attachment> {
  const doc = await deps.stack.getDocument(id);
  if (!doc) throw KERNEL_ERRORS.docNotFound(`There is no active document with the id ${JSON.stringify(id)}.`, { details: { id } });
  const model = await deps.stack.requireClass(doc['~class']);
  const stub = typeof name === 'string' ? ((doc._attachments ?? {}) as Record<string, Stub>)[name] : undefined;
  if (!stub || !Object.hasOwn(doc._attachments as object, name)) throw notFound(doc._id, name);
  const stored = await deps.storage.attachment(doc._id, name, doc._rev);
  if (!stored) throw notFound(doc._id, name);
  const contentType = String(stub.content_type ?? 'application/octet-stream');
  const bytes = await deps.hooks.attachmentRead.promise(stored, { stack: deps.stack, classModel: model, docId: doc._id, name, contentType });
  return { name, contentType, length: bytes.byteLength, digest: String(stub.digest ?? ''), data: platformData(bytes, contentType) };
}
