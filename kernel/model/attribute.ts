import { KEYS } from '../container.js';
import { DocstackError } from '../errors.js';
import type { WriteRequest } from '../pipeline.js';
import { scanClass } from '../reads.js';
import type { ClientStack } from '../stack.js';
import { normalizeAttribute } from './attribute-rules.js';
import type { Class } from './class.js';
import type { AttributeConfig, AttributeModel, AttributeType, ClassModel, Doc } from './types.js';

/** Checks a value against one attribute, as the validation plugin would on a write. */
export type ValueCheck = (classModel: ClassModel, attribute: AttributeModel, value: unknown) => Promise<void>;

const STAMP_BATCH = 500;

export class Attribute {
  /**
   * Adds an attribute to a class: checks the model, writes it into the class document (the
   * validator follows the new revision), then stamps a defaultValue onto the class's
   * existing active documents, through the pipeline, in batches.
   */
  static async create(
    classObj: Class,
    name: string,
    type: AttributeType | string,
    description?: string,
    config: AttributeConfig = {},
  ): Promise<AttributeModel> {
    const { stack } = classObj;
    const current = await stack.requireClass(classObj.name);
    const classExists = async (target: string) => target === current.name || (await stack.classCache.get(target))?.active === true;
    const attribute = await normalizeAttribute({ ...config, name, type, description }, { classModel: current, classExists });
    if (current.schema[attribute.name]) {
      throw new DocstackError('DS_ATTRIBUTE_EXISTS', `The class "${current.name}" already has an attribute "${attribute.name}".`, { path: attribute.name });
    }
    await checkDefaultValue(stack, current, attribute);
    const hasDocs = await hasDocuments(stack, current);
    if (attribute.primaryKey && hasDocs) {
      throw new DocstackError('DS_ATTRIBUTE_PRIMARY_KEY', `"${current.name}" already has documents: define its primary key before writing any.`, { path: attribute.name });
    }
    if (attribute.mandatory && attribute.defaultValue === undefined && hasDocs) {
      throw new DocstackError(
        'DS_ATTRIBUTE_MANDATORY_NEEDS_DEFAULT',
        `"${current.name}" already has documents: the mandatory attribute "${attribute.name}" needs a defaultValue for them.`,
        { path: attribute.name },
      );
    }
    const saved = await classObj.saveModel((model) => {
      if (model.schema[attribute.name]) {
        throw new DocstackError('DS_ATTRIBUTE_EXISTS', `The class "${model.name}" already has an attribute "${attribute.name}".`, { path: attribute.name });
      }
      model.schema[attribute.name] = attribute;
      return model;
    });
    if (attribute.defaultValue !== undefined && hasDocs) await stampDefault(stack, saved, attribute);
    return attribute;
  }
}

export async function checkDefaultValue(stack: ClientStack, classModel: ClassModel, attribute: AttributeModel): Promise<void> {
  if (attribute.defaultValue === undefined || !stack.container.hasRegistration(KEYS.valueCheck)) return;
  const check = stack.container.resolve<ValueCheck>(KEYS.valueCheck);
  try {
    await check(classModel, attribute, attribute.defaultValue);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new DocstackError('DS_ATTRIBUTE_DEFAULT_INVALID', `The defaultValue of "${attribute.name}" is refused: ${reason}`, {
      path: attribute.name,
      cause: err,
    });
  }
}

async function hasDocuments(stack: ClientStack, model: ClassModel): Promise<boolean> {
  const rows = await stack.db.allDocs({ startkey: `${model.name}-`, endkey: `${model.name}-\uffff`, limit: 1 });
  return rows.rows.length > 0;
}

async function stampDefault(stack: ClientStack, model: ClassModel, attribute: AttributeModel): Promise<void> {
  for (;;) {
    const docs = await scanClass(stack, stack.db, stack.hooks, model, { [attribute.name]: { $exists: false } }, { limit: STAMP_BATCH });
    if (docs.length === 0) return;
    const requests: WriteRequest[] = docs.map((previous: Doc) => ({
      op: 'update',
      previous,
      draft: { ...previous, [attribute.name]: structuredClone(attribute.defaultValue), '~updateTimestamp': new Date().toISOString() },
      classModel: model,
    }));
    await stack.writeRequests(requests, 'system');
  }
}
