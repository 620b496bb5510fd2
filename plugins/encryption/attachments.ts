import { SEALED_ATTACHMENT_ALLOWANCE, type AttachmentReadContext, type ClassModel, type Doc, type WriteContext } from '../../index.js';
import { base64ToBytes, bytesToBase64 } from '../../kit/index.js';
import { randomBytes } from './crypto.js';
import { ENCRYPTION_ERRORS } from './errors.js';
import type { Keyring } from './keyring.js';
import { encryptedAttributes, scopeOf } from './sealing.js';

/**
 * Sealed attachments: the file of an `attachment` attribute with `encrypted: true` is stored as
 * `DSA1 · header length (2 bytes) · header JSON { scope, kid } · IV (12) · AES-256-GCM ciphertext
 * and tag`, under the current key of the document's scope, the tag bound to the document, class
 * and attribute. Storage, replication and the node hold ciphertext only; a key holder's
 * getAttachment opens it (the attachmentRead hook). The content type stays readable, as an
 * attribute's name does: the node checks it against the attribute's `types`.
 */

const MAGIC = [0x44, 0x53, 0x41, 0x31]; // "DSA1"
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const subtle = () => globalThis.crypto.subtle;
const labelOf = (docId: string, className: string, name: string) => encoder.encode(`docstack:v1|${docId}|${className}|_attachments/${name}`);

const sealedAttachments = (model: ClassModel) => encryptedAttributes(model).filter((a) => a.type === 'attachment');

export function hasSealedAttachments(model: ClassModel): boolean {
  return sealedAttachments(model).length > 0;
}

function isSealedBytes(bytes: Uint8Array): boolean {
  return bytes.length > 6 && MAGIC.every((b, i) => bytes[i] === b);
}

/** beforeWrite: every new file of an encrypted attachment attribute sealed (stubs and sealed ones kept). */
export async function sealAttachments(doc: Doc, ctx: WriteContext, keyring: Keyring): Promise<Doc> {
  const attachments = doc._attachments as Record<string, { content_type?: string; data?: unknown; stub?: boolean }> | undefined;
  if (!attachments || ctx.op === 'delete') return doc;
  let next: Record<string, unknown> | null = null;
  for (const { name } of sealedAttachments(ctx.classModel)) {
    const entry = attachments[name];
    if (!entry || typeof entry.data !== 'string') continue;
    const plain = base64ToBytes(entry.data);
    if (isSealedBytes(plain)) continue; // a peer's ciphertext, stored as it came
    const scope = scopeOf(doc, ctx.classModel);
    const { kid, key } = await keyring.currentKey(scope);
    const header = encoder.encode(JSON.stringify({ scope, kid }));
    const iv = randomBytes(12);
    const ct = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: labelOf(doc._id, ctx.classModel.name, name) }, key, plain as Uint8Array<ArrayBuffer>));
    const out = new Uint8Array(6 + header.length + 12 + ct.length);
    out.set(MAGIC, 0);
    out[4] = header.length >> 8;
    out[5] = header.length & 255;
    out.set(header, 6);
    out.set(iv, 6 + header.length);
    out.set(ct, 18 + header.length);
    if (out.length - plain.length > SEALED_ATTACHMENT_ALLOWANCE) {
      throw ENCRYPTION_ERRORS.encryptionUnavailable(`The scope name of "${name}" is too long to seal its attachment within the node's allowance.`, { path: `_attachments.${name}` });
    }
    next ??= { ...attachments };
    next[name] = { content_type: entry.content_type, data: bytesToBase64(out) };
  }
  return next ? ({ ...doc, _attachments: next } as Doc) : doc;
}

/** attachmentRead: a sealed file opened with its scope's key; DS_ENCRYPTION_LOCKED when the key is not held here. */
export async function openAttachment(bytes: Uint8Array, ctx: AttachmentReadContext, keyring: Keyring): Promise<Uint8Array> {
  const attribute = ctx.classModel.schema[ctx.name];
  if (!attribute || attribute.encrypted !== true || !isSealedBytes(bytes)) return bytes;
  const path = `_attachments.${ctx.name}`;
  const length = (bytes[4]! << 8) | bytes[5]!;
  let header: { scope?: unknown; kid?: unknown };
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(6, 6 + length))) as typeof header;
  } catch {
    throw ENCRYPTION_ERRORS.encryptionIntegrity(`The sealed attachment "${ctx.name}" of ${ctx.docId} is malformed.`, { path });
  }
  const { scope, kid } = header;
  if (typeof scope !== 'string' || typeof kid !== 'string') throw ENCRYPTION_ERRORS.encryptionIntegrity(`The sealed attachment "${ctx.name}" of ${ctx.docId} is malformed.`, { path });
  const key = await keyring.keyFor(scope, kid);
  if (!key) throw ENCRYPTION_ERRORS.encryptionLocked(`The attachment "${ctx.name}" of ${ctx.docId} is sealed under the scope "${scope}", whose key is not held here.`, { path, details: { scope } });
  try {
    const iv = bytes.subarray(6 + length, 18 + length);
    const plain = await subtle().decrypt({ name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, additionalData: labelOf(ctx.docId, ctx.classModel.name, ctx.name) }, key, bytes.subarray(18 + length) as Uint8Array<ArrayBuffer>);
    return new Uint8Array(plain);
  } catch {
    throw ENCRYPTION_ERRORS.encryptionIntegrity(`The attachment "${ctx.name}" of ${ctx.docId} does not open: altered, or moved from another document or attribute.`, { path, details: { scope, kid } });
  }
}
