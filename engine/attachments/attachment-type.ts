import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { AttributeTypeDefinition, ConfigKeyRule } from '../../contracts/attribute-types.js';
import type { AttributeModel } from '../../contracts/model.js';

/**
 * The `attachment` attribute type: it names one file a document may carry (its `_attachments`
 * entry of the same name, written with stack.putAttachment) and bounds it — `maxBytes` (default
 * DEFAULT_ATTACHMENT_MAX_BYTES) and `types`, a MIME allowlist (`image/jpeg`, or `image/*` for a
 * whole family). The attribute holds no value in the document's body: the file is the value.
 */

/** The size bound of an attachment attribute without `maxBytes`: 10 MiB. */
export const DEFAULT_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;

/** A MIME type `type/subtype` (parameters such as `; charset=utf-8` follow a `;`). */
export const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9*][A-Za-z0-9!#$&^_.+-]{0,126}$/;

const refuse = (message: string, attribute: AttributeModel): never => {
  throw KERNEL_ERRORS.attributeConfigInvalid(message, { path: attribute.name });
};

const maxBytes: ConfigKeyRule = (value, a) =>
  Number.isSafeInteger(value) && (value as number) >= 1 ? value : refuse(`"maxBytes" of the attachment "${a.name}" must be a whole number of bytes ≥ 1.`, a);

const types: ConfigKeyRule = (value, a) => {
  const list = Array.isArray(value) ? value : [];
  const ok = list.length > 0 && list.every((t) => typeof t === 'string' && MIME_TYPE.test(t) && (!t.includes('*') || t.endsWith('/*')));
  if (!ok) refuse(`"types" of the attachment "${a.name}" must be a non-empty list of MIME types such as "image/jpeg" or "image/*".`, a);
  return (list as string[]).map((t) => t.toLowerCase());
};

export const attachmentType: AttributeTypeDefinition = {
  type: 'attachment',
  label: 'an attachment (written with stack.putAttachment)',
  keys: { maxBytes, types },
  check: (a) => {
    for (const key of ['mandatory', 'isArray', 'primaryKey'] as const) {
      if (a[key] === true) refuse(`The attachment "${a.name}" cannot be ${key === 'isArray' ? 'an array' : key === 'primaryKey' ? 'a primary key' : 'mandatory'}: a document gets its file after it is created.`, a);
    }
    if (a.defaultValue !== undefined) refuse(`The attachment "${a.name}" cannot have a defaultValue.`, a);
  },
  // the body never holds the file: it is the document's `_attachments` entry of the same name
  validate: () => 'no value: an attachment is written with stack.putAttachment',
};

/** The content type without its parameters, lower case: what `types` is matched against. */
export function baseType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** Does an attribute's `types` allow this content type (every type when it sets none)? */
export function typeAllowed(attribute: AttributeModel, contentType: string): boolean {
  const allowed = attribute.types as string[] | undefined;
  if (allowed === undefined) return true;
  const base = baseType(contentType);
  return allowed.some((t) => t === base || (t.endsWith('/*') && base.startsWith(t.slice(0, -1))));
}
