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

/**
 * What a sealed attachment may weigh above its plaintext on a stack that cannot open it (a node
 * checking a peer's push): the encryption plugin's header, IV and tag. The plugin refuses to
 * seal past it, so the bound a node checks is the bound the writer's plaintext met.
 */
export const SEALED_ATTACHMENT_ALLOWANCE = 1024;

/** A MIME type `type/subtype` (parameters such as `; charset=utf-8` follow a `;`). */
export const MIME_TYPE = /^[\w.+-]{1,127}\/[\w.+*-]{1,127}$/;

const refuse = (message: string, attribute: AttributeModel): never => {
  throw KERNEL_ERRORS.attributeConfigInvalid(message, { path: attribute.name });
};

const maxBytes: ConfigKeyRule = (value, a) => (Number.isSafeInteger(value) && (value as number) >= 1 ? value : refuse(`"maxBytes" of "${a.name}" must be a whole number ≥ 1.`, a));

const types: ConfigKeyRule = (value, a) => {
  const list = Array.isArray(value) ? value : [];
  const ok = list.length > 0 && list.every((t) => typeof t === 'string' && MIME_TYPE.test(t) && (!t.includes('*') || t.endsWith('/*')));
  if (!ok) refuse(`"types" of "${a.name}" must list MIME types ("image/png", "image/*").`, a);
  return (list as string[]).map((t) => t.toLowerCase());
};

export const attachmentType: AttributeTypeDefinition = {
  type: 'attachment',
  keys: { maxBytes, types },
  // a document gets its file after it is created, one per attribute
  check: (a) => {
    if (a.mandatory || a.isArray || a.primaryKey || a.defaultValue !== undefined) refuse(`The attachment "${a.name}" cannot be mandatory, an array, a key or defaulted.`, a);
  },
  // the body never holds the file: it is the document's `_attachments` entry of the same name
  validate: () => 'no value (see putAttachment)',
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
