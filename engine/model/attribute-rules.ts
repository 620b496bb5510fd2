import { KERNEL_ERRORS, type ErrorFactory } from '../../contracts/errors.js';
import type { AttributeContext } from '../../kernel/hooks.js';
import type { AttributeTypes } from './attribute-types.js';
import { SYSTEM_FIELDS, type AttributeModel, type ClassModel } from '../../contracts/model.js';

/** Config keys every type accepts (the kernel's); plugins add more (AttributeTypes.defineKey). */
export const COMMON_KEYS = ['name', 'type', 'description', 'mandatory', 'defaultValue', 'isArray', 'primaryKey'] as const;

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
const RESERVED_NAMES = new Set<string>([...SYSTEM_FIELDS, 'active']);

export interface AttributeRuleContext extends AttributeContext {
  types: AttributeTypes;
  /** the plugins' vetoes (hooks.checkAttribute) */
  checkAttribute(attribute: AttributeModel): Promise<void>;
}

function refuse(error: ErrorFactory, message: string, path: string): never {
  throw error(message, { path });
}

/** The attribute-name rule, alone: what a stored attribute this stack cannot read must still meet. */
export function checkAttributeName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.length > 64) {
    refuse(KERNEL_ERRORS.attributeNameInvalid, `An attribute name must start with a letter and hold only letters, digits and "_" (got ${JSON.stringify(name)}).`, String(name));
  }
  if (RESERVED_NAMES.has(name)) refuse(KERNEL_ERRORS.attributeNameInvalid, `"${name}" is a system field and cannot be an attribute.`, name);
}

/**
 * Checks an attribute model against the rules of its type (the kernel's or a plugin's) and
 * returns it normalised (unset keys dropped, primary keys made mandatory). Every refusal
 * names the attribute.
 */
export async function normalizeAttribute(input: Record<string, unknown>, ctx: AttributeRuleContext): Promise<AttributeModel> {
  const { name } = input;
  checkAttributeName(name);
  const type = ctx.types.type(input.type as string);
  if (!type) {
    refuse(KERNEL_ERRORS.attributeTypeUnknown, `"${String(input.type)}" is not an attribute type on this stack; use one of ${ctx.types.typeNames().join(', ')}.`, name);
  }
  const model: AttributeModel = { name, type: type.type };
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || key === 'name' || key === 'type') continue;
    const rule = type.keys?.[key] ?? ctx.types.key(key)?.rule;
    if (rule) {
      const stored = rule(value, model, input);
      if (stored !== undefined) model[key] = stored;
    } else if (!(COMMON_KEYS as readonly string[]).includes(key)) {
      const owners = ctx.types.ownersOfKey(key);
      const hint = owners.length > 0 ? `it applies to ${owners.join(', ')} attributes only` : 'it is not an attribute config key on this stack';
      refuse(KERNEL_ERRORS.attributeConfigInvalid, `"${key}" cannot be set on the ${type.type} attribute "${name}": ${hint}.`, name);
    }
  }
  if (input.description !== undefined) {
    if (typeof input.description !== 'string') refuse(KERNEL_ERRORS.attributeConfigInvalid, `The description of "${name}" must be a string.`, name);
    model.description = input.description;
  }
  for (const flag of ['mandatory', 'isArray', 'primaryKey'] as const) {
    const value = input[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') refuse(KERNEL_ERRORS.attributeConfigInvalid, `"${flag}" of "${name}" must be true or false.`, name);
    if (value) model[flag] = true;
  }
  if (model.primaryKey) checkPrimaryKey(model, ctx.classModel, type.keyable === true);
  await type.check?.(model, ctx);
  for (const key of Object.keys(model)) await ctx.types.key(key)?.check?.(model, ctx);
  await ctx.checkAttribute(model);
  if (input.defaultValue !== undefined) model.defaultValue = input.defaultValue;
  return model;
}

function checkPrimaryKey(model: AttributeModel, cls: ClassModel, keyable: boolean): void {
  const { name } = model;
  if (!keyable) refuse(KERNEL_ERRORS.attributePrimaryKey, `A ${model.type} attribute cannot be part of a primary key ("${name}").`, name);
  if (model.isArray) refuse(KERNEL_ERRORS.attributePrimaryKey, `An array attribute cannot be part of a primary key ("${name}").`, name);
  if (cls.simple) refuse(KERNEL_ERRORS.attributePrimaryKey, `"${cls.name}" is a simple class: it keeps no primary-key index.`, name);
  model.mandatory = true; // a key with a hole in it identifies nothing
}
