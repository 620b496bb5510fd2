import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { isPlainObject } from '../../kernel/drafts.js';
import type { AttributeModel, ClassDocument, ClassModel, StoredAttribute } from '../../contracts/model.js';

/**
 * The two shapes of an attribute, and the one place that converts between them.
 *
 * - Stored (the specification's attribute model, what a class document holds and replicates):
 *   `{ name, type, config: { maxLength: 40, mandatory: true }, description? }`.
 * - Flat (AttributeModel, what ClassModel.schema holds in memory and every reader uses):
 *   `{ name, type, maxLength: 40, mandatory: true, description? }`.
 *
 * A class document is read in either shape (stores written before the specification's shape, a
 * peer running an older version) and always written in the stored shape. Nothing rewrites a
 * class document only because it arrived in the other shape: readers normalise, so two devices
 * of different versions never answer each other's revision with one of their own.
 */

/** Keys an attribute holds beside `config`; none of them may also be inside it. */
const OUTER_KEYS = ['name', 'type', 'config', 'description'];

const hasConfig = (attribute: unknown): boolean => isPlainObject(attribute) && Object.hasOwn(attribute, 'config');

/** The stored shape of a flat attribute: every key but name, type and description goes into `config`. */
export function toStoredAttribute(attribute: AttributeModel): StoredAttribute {
  // an attribute kept as stored because it could not be read flat (see toClassModel) stays so
  if (hasConfig(attribute)) return attribute as unknown as StoredAttribute;
  const { name, type, description, ...config } = attribute;
  return description === undefined ? { name, type, config } : { name, type, config, description };
}

/**
 * An attribute in either shape as one flat record (the input `normalizeAttribute` checks): a
 * `config` object's keys are spread beside name and type. Refuses (DS_ATTRIBUTE_CONFIG_INVALID)
 * a `config` that is not an object, holds an outer key, or repeats a key also set beside it.
 */
export function toFlatAttribute(input: Record<string, unknown>, label: string = String(input.name)): Record<string, unknown> {
  if (!Object.hasOwn(input, 'config')) return input;
  const { config, ...outer } = input;
  if (config === undefined) return outer;
  const refuse = (message: string): never => {
    throw KERNEL_ERRORS.attributeConfigInvalid(message, { path: label });
  };
  if (!isPlainObject(config)) refuse(`The config of the attribute "${label}" must be an object of configuration keys (got ${JSON.stringify(config)}).`);
  for (const key of Object.keys(config as Record<string, unknown>)) {
    if (OUTER_KEYS.includes(key)) refuse(`"${key}" of the attribute "${label}" belongs beside "config", not inside it.`);
    if (Object.hasOwn(outer, key)) refuse(`"${key}" of the attribute "${label}" is set both in "config" and beside it: set it once, in "config".`);
  }
  return { ...outer, ...(config as Record<string, unknown>) };
}

/**
 * A class document in either shape as the in-memory ClassModel (flat attributes). Strict (a
 * peer's class document being checked) refuses a malformed `config`; otherwise such an
 * attribute is kept as stored, and its `config` key — which no plugin defines — makes the class
 * read-only here (DS_CAPABILITY_MISSING) rather than unreadable. A document already flat is
 * returned as it is (the same object).
 */
export function toClassModel(doc: ClassDocument | ClassModel, options: { strict?: boolean } = {}): ClassModel {
  const schema = doc.schema as Record<string, unknown> | undefined;
  if (!isPlainObject(schema) || !Object.values(schema).some(hasConfig)) return doc as ClassModel;
  const flat: Record<string, unknown> = {};
  for (const [key, attribute] of Object.entries(schema)) {
    if (!hasConfig(attribute)) {
      flat[key] = attribute;
      continue;
    }
    const record = attribute as Record<string, unknown>;
    try {
      flat[key] = toFlatAttribute(record, key);
    } catch (err) {
      if (options.strict) throw err;
      flat[key] = attribute;
    }
  }
  return { ...(doc as ClassModel), schema: flat as ClassModel['schema'] };
}

/** A class model as its document is stored: every attribute in the stored shape. */
export function toClassDocument(model: ClassModel | ClassDocument): ClassDocument {
  const schema = model.schema as Record<string, AttributeModel>;
  if (!isPlainObject(schema)) return model as ClassDocument;
  const stored: Record<string, StoredAttribute> = {};
  for (const [key, attribute] of Object.entries(schema)) stored[key] = isPlainObject(attribute) ? toStoredAttribute(attribute) : (attribute as StoredAttribute);
  return { ...(model as ClassModel), schema: stored };
}

/** Whether a class document holds an attribute in the flat shape (what system patch 0002 rewrites). */
export function hasFlatAttributes(doc: object): boolean {
  const { schema } = doc as { schema?: unknown };
  return isPlainObject(schema) && Object.values(schema).some((a) => isPlainObject(a) && !hasConfig(a));
}
