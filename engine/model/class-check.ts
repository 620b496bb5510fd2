import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { checkAttributeName, normalizeAttribute } from './attribute-rules.js';
import { hasDocuments, ruleContext } from './attribute.js';
import { checkConflictPolicy } from './conflict-policy.js';
import { toClassModel } from './attribute-shape.js';
import { CLASS_META, type AttributeModel, type ClassModel } from '../../contracts/model.js';
import type { StackPort } from '../../contracts/stack-port.js';

const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const TYPE_NAME = /^[a-z][a-z0-9_]*$/;

const invalid = (message: string, path?: string): never => {
  throw KERNEL_ERRORS.classInvalid(message, path === undefined ? {} : { path });
};

/**
 * A class document a peer made (stack.ingest) passes the rules `Class.create` and
 * `Attribute.create` apply locally: a well-formed model named by its id, every attribute valid
 * for its type, and — when the class already has documents — no new primary-key attribute and
 * no new mandatory attribute without a defaultValue (the existing documents would break it).
 * Relaxing changes (an attribute no longer mandatory, a looser type, a removed attribute, a
 * deleted class) are allowed: on a node only an admin's push gets this far (its `admit` tap).
 */
export async function checkClassDocument(stack: StackPort, incoming: Record<string, unknown>, previous: ClassModel | null, arriving?: ReadonlySet<string>): Promise<void> {
  if (incoming._deleted === true) return;
  const id = incoming._id as string;
  if (incoming['~class'] !== CLASS_META) invalid(`"${id}" is a class document but its ~class is not "class".`, '~class');
  if (!CLASS_NAME.test(id) || id.length > 64) invalid(`${JSON.stringify(id)} is not a class name.`, '_id');
  const raw = incoming as unknown as ClassModel;
  if (raw.name !== id) invalid('A class document must carry its own name as _id.', 'name');
  if (raw.schema === null || typeof raw.schema !== 'object' || Array.isArray(raw.schema)) invalid('A class document needs a schema object.', 'schema');
  // either attribute shape (the stored `{ name, type, config }` or the flat one of older peers),
  // checked as the flat model; the document itself is stored as it came
  const model = toClassModel(raw, { strict: true });
  previous = previous && toClassModel(previous);
  if (model.conflicts !== undefined) checkConflictPolicy(model.conflicts);
  if (model.active === false) return; // a deactivation: nothing of the schema is used any more

  const rules = ruleContext(stack, model, arriving);
  const hasDocs = await hasDocuments(stack, id);
  for (const [name, attribute] of Object.entries(model.schema)) {
    if (attribute === null || typeof attribute !== 'object' || attribute.name !== name) {
      throw KERNEL_ERRORS.attributeInvalid(`The attribute "${name}" is malformed.`, { path: name });
    }
    // a type or key no plugin here defines: kept as the peer wrote it, and the class is
    // read-only on this stack (the pipeline's DS_CAPABILITY_MISSING), never written unchecked
    if (typeof attribute.type === 'string' && TYPE_NAME.test(attribute.type) && stack.attributeTypes.missing(attribute)) {
      checkAttributeName(name);
      continue;
    }
    const normalized = await normalizeAttribute(attribute as unknown as Record<string, unknown>, rules);
    if (hasDocs) refuseBreakingAddition(id, normalized, previous?.active === false ? undefined : previous?.schema?.[name]);
  }
}

function refuseBreakingAddition(className: string, next: AttributeModel, before: AttributeModel | undefined): void {
  if (next.primaryKey && !before?.primaryKey) {
    throw KERNEL_ERRORS.attributePrimaryKey(`"${className}" already has documents: "${next.name}" cannot become part of its primary key.`, { path: next.name });
  }
  const newlyMandatory = next.mandatory && !before?.mandatory;
  if (newlyMandatory && next.defaultValue === undefined) {
    throw KERNEL_ERRORS.attributeMandatoryNeedsDefault(
      `"${className}" already has documents: the mandatory attribute "${next.name}" needs a defaultValue for them.`,
      { path: next.name },
    );
  }
}
