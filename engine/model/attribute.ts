import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { nowIso } from '../../kernel/drafts.js';
import type { WriteRequest } from '../../kernel/pipeline.js';
import type { StackPort } from '../../contracts/stack-port.js';
import { normalizeAttribute, type AttributeRuleContext } from './attribute-rules.js';
import type { AttributeConfig, AttributeModel, AttributeType, ClassModel, Doc } from '../../contracts/model.js';

const STAMP_BATCH = 500;

/** What Attribute.create needs of a class object (engine/model/class.ts: Class), named here so the two files do not import each other. */
export interface AttributeHost {
  readonly stack: StackPort;
  readonly name: string;
  saveModel(change: (model: ClassModel) => ClassModel | Promise<ClassModel>): Promise<ClassModel>;
}

export class Attribute {
  /**
   * Adds an attribute to a class: checks the model, writes it into the class document (the
   * validator follows the new revision), then stamps a defaultValue onto the class's
   * existing active documents, through the pipeline, in batches.
   */
  static async create(
    classObj: AttributeHost,
    name: string,
    type: AttributeType | string,
    description?: string,
    config: AttributeConfig = {},
  ): Promise<AttributeModel> {
    const { stack } = classObj;
    const current = await stack.requireClass(classObj.name);
    const attribute = await normalizeAttribute({ ...config, name, type, description }, ruleContext(stack, current));
    if (current.schema[attribute.name]) {
      throw KERNEL_ERRORS.attributeExists(`The class "${current.name}" already has an attribute "${attribute.name}".`, { path: attribute.name });
    }
    await checkDefaultValue(stack, current, attribute);
    const hasDocs = await hasDocuments(stack, current.name);
    if (attribute.primaryKey && hasDocs) {
      throw KERNEL_ERRORS.attributePrimaryKey(`"${current.name}" already has documents: define its primary key before writing any.`, { path: attribute.name });
    }
    if (attribute.mandatory && attribute.defaultValue === undefined && hasDocs) {
      throw KERNEL_ERRORS.attributeMandatoryNeedsDefault(
        `"${current.name}" already has documents: the mandatory attribute "${attribute.name}" needs a defaultValue for them.`,
        { path: attribute.name },
      );
    }
    const prospective: ClassModel = { ...current, schema: { ...current.schema, [attribute.name]: attribute } };
    // Stamping must not fail half-way: every stamped document is checked before anything is saved.
    if (attribute.defaultValue !== undefined && hasDocs) {
      await forEachUnstamped(stack, current.name, attribute, async (docs) => void (await stack.checkRequests(stampRequests(docs, prospective, attribute, nowIso(stack.clock)), 'system')));
    }
    const saved = await classObj.saveModel((model) => {
      if (model.schema[attribute.name]) {
        throw KERNEL_ERRORS.attributeExists(`The class "${model.name}" already has an attribute "${attribute.name}".`, { path: attribute.name });
      }
      model.schema[attribute.name] = attribute;
      return model;
    });
    if (attribute.defaultValue !== undefined && hasDocs) {
      await forEachUnstamped(stack, current.name, attribute, async (docs) => {
        await stack.writeRequests(stampRequests(docs, saved, attribute, nowIso(stack.clock)), 'system');
      });
    }
    return attribute;
  }
}

/**
 * Refuses a defaultValue the attribute would refuse, and puts it in its stored form: the class
 * document keeps exactly what documents will receive (JSON, not a Date object).
 */
/** What the attribute rules need from a stack: its attribute types and the plugins' vetoes. */
export function ruleContext(stack: StackPort, classModel: ClassModel, arriving?: ReadonlySet<string>): AttributeRuleContext {
  const more = arriving ? { arriving } : {};
  return {
    classModel,
    stack,
    ...more,
    types: stack.attributeTypes,
    checkAttribute: (attribute) => stack.hooks.checkAttribute.promise(attribute, { stack, classModel, ...more }),
  };
}

export async function checkDefaultValue(stack: StackPort, classModel: ClassModel, attribute: AttributeModel): Promise<void> {
  if (attribute.defaultValue === undefined) return;
  let value: unknown = attribute.defaultValue;
  {
    try {
      value = await stack.hooks.defaultValue.promise(value, { stack, classModel, attribute });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw KERNEL_ERRORS.attributeDefaultInvalid(`The defaultValue of "${attribute.name}" is refused: ${reason}`, {
        path: attribute.name,
        cause: err,
      });
    }
  }
  attribute.defaultValue = JSON.parse(JSON.stringify(value));
}

/** Does the class have a stored document (active or not), in its id range or outside it? */
export async function hasDocuments(stack: StackPort, className: string): Promise<boolean> {
  for await (const page of stack.storage.classPages(className, { size: 1 })) if (page.length > 0) return true;
  return false;
}

/** Active raw documents of the class that lack the attribute, a page at a time. */
async function forEachUnstamped(stack: StackPort, className: string, attribute: AttributeModel, visit: (docs: Doc[]) => Promise<void>): Promise<void> {
  for await (const page of stack.storage.classPages(className, { size: STAMP_BATCH })) {
    const docs = page.filter((doc) => doc['~class'] === className && doc.active !== false && doc[attribute.name] === undefined);
    if (docs.length > 0) await visit(docs);
  }
}

function stampRequests(docs: Doc[], model: ClassModel, attribute: AttributeModel, now: string): WriteRequest[] {
  return docs.map((previous) => ({
    op: 'update',
    previous,
    draft: { ...previous, [attribute.name]: structuredClone(attribute.defaultValue), '~updateTimestamp': now },
    classModel: model,
  }));
}
