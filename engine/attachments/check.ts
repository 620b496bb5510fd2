import { ATTACHMENT_ERRORS } from './errors.js';
import type { WriteOrigin } from '../../contracts/hooks.js';
import type { AttributeModel, ClassModel, Doc } from '../../contracts/model.js';
import type { UnitItem, WritePart } from '../../contracts/unit-of-work.js';
import { isPlainObject } from '../../kernel/drafts.js';
import { DEFAULT_ATTACHMENT_MAX_BYTES, MIME_TYPE, SEALED_ATTACHMENT_ALLOWANCE, baseType, typeAllowed } from './attachment-type.js';
import { byteLengthOf } from './bytes.js';

export { SEALED_ATTACHMENT_ALLOWANCE } from './attachment-type.js';

const refuse = (message: string, path: string, details: Record<string, unknown> = {}) => {
  throw ATTACHMENT_ERRORS.attachmentInvalid(message, { path, details });
};

/** The attachment attribute an `_attachments` name stands for, or a refusal. */
export function attachmentAttribute(model: ClassModel, name: unknown): AttributeModel {
  const attribute = typeof name === 'string' && Object.hasOwn(model.schema, name) ? model.schema[name] : undefined;
  if (!attribute || attribute.type !== 'attachment') {
    refuse(`${JSON.stringify(name)} is not an attachment attribute of "${model.name}": a document carries only the files its class names (an attribute of type "attachment").`, `_attachments.${String(name)}`, { className: model.name });
  }
  return attribute!;
}

/** Refuses a content type that is not `type/subtype` or that the attribute's `types` leaves out. */
export function checkContentType(attribute: AttributeModel, contentType: unknown, path: string): asserts contentType is string {
  if (typeof contentType !== 'string' || contentType.length > 255 || !MIME_TYPE.test(baseType(contentType)) || baseType(contentType).includes('*')) {
    refuse(`The content type of "${attribute.name}" must be a MIME type such as "image/jpeg" (got ${JSON.stringify(contentType)?.slice(0, 100)}).`, path);
  }
  if (!typeAllowed(attribute, contentType as string)) {
    throw ATTACHMENT_ERRORS.attachmentType(`"${attribute.name}" takes ${(attribute.types as string[]).join(', ')}, not ${JSON.stringify(contentType)}.`, {
      path,
      details: { contentType, types: attribute.types },
    });
  }
}

/** Refuses data past the attribute's bound (`sealed`: a ciphertext this stack cannot open, checked with its allowance). */
export function checkSize(attribute: AttributeModel, length: number, path: string, sealed = false): void {
  const maxBytes = typeof attribute.maxBytes === 'number' ? attribute.maxBytes : DEFAULT_ATTACHMENT_MAX_BYTES;
  if (length > maxBytes + (sealed ? SEALED_ATTACHMENT_ALLOWANCE : 0)) {
    throw ATTACHMENT_ERRORS.attachmentTooLarge(`"${attribute.name}" holds at most ${maxBytes} bytes; this one has ${length}.`, { path, details: { maxBytes, length } });
  }
}

/**
 * Every `_attachments` entry of a document against its class: each is named by an attachment
 * attribute; a new file (with data) has an allowed content type and fits maxBytes. A stub (a
 * file stored before, `stub: true`) keeps the stored file: it must name one the document holds
 * (a peer's stub of a file never sent would leave a document whose file cannot be read).
 */
export function checkAttachments(doc: Doc, model: ClassModel, origin: WriteOrigin, previous?: Doc): void {
  const attachments = doc._attachments;
  if (attachments === undefined) return;
  if (!isPlainObject(attachments)) refuse('_attachments must be an object of files by name.', '_attachments');
  for (const [name, entry] of Object.entries(attachments as Record<string, unknown>)) {
    const path = `_attachments.${name}`;
    const attribute = attachmentAttribute(model, name);
    if (!isPlainObject(entry)) refuse(`The attachment "${name}" must be an object { content_type, data }.`, path);
    const { content_type: contentType, data, stub } = entry as Record<string, unknown>;
    if (stub === true && data === undefined) {
      const kept = (previous?._attachments as Record<string, { digest?: unknown }> | undefined)?.[name];
      if (!kept || kept.digest !== (entry as { digest?: unknown }).digest) refuse(`The stub "${name}" names a file ${doc._id} does not hold here.`, path);
      continue;
    }
    checkContentType(attribute, contentType, path);
    const length = byteLengthOf(data);
    if (length === null) refuse(`The data of "${name}" must be a Blob, bytes or base64 text.`, path);
    // a peer's push of an encrypted attachment is ciphertext its writer checked as plaintext
    checkSize(attribute, length!, path, attribute.encrypted === true && origin === 'replication');
  }
}

/**
 * The engine's share of every write: the attachments of each document checked against its class.
 * One object for every stack (it keeps no state): its `begin` runs on every write, and a function
 * made once keeps its optimized code for the process (docs/benchmarks.md#code-shared-by-every-stack).
 */
const ATTACHMENTS_PART: WritePart = {
  name: 'attachments',
  begin(work) {
    const carrying = work.items.filter((item: UnitItem) => item.doc._attachments !== undefined);
    if (carrying.length === 0) return undefined;
    return { checked: () => carrying.forEach((item) => checkAttachments(item.doc, item.classModel, work.origin, item.previous)) };
  },
};

export function attachmentsPart(): WritePart {
  return ATTACHMENTS_PART;
}
