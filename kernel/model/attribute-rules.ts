import { DocstackError, type ErrorCode } from '../errors.js';
import { ATTRIBUTE_TYPES, SYSTEM_FIELDS, type AttributeModel, type AttributeType, type ClassModel } from './types.js';

/** Config keys every type accepts. */
const COMMON_KEYS = ['mandatory', 'defaultValue', 'isArray', 'primaryKey', 'encrypted'] as const;

/** Config keys that only some types accept. */
const TYPE_KEYS: Record<AttributeType, readonly string[]> = {
  string: ['maxLength'],
  integer: ['min', 'max'],
  decimal: ['min', 'max', 'precision'],
  boolean: [],
  date: ['format'],
  enum: ['values'],
  object: [],
  foreign_key: ['targetClass'],
  reference: ['domain'],
};

/** Types that can be part of a natural primary key (scalars with a stable JSON form). */
const KEY_TYPES: readonly AttributeType[] = ['string', 'integer', 'decimal', 'boolean', 'date', 'enum', 'foreign_key'];

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
const RESERVED_NAMES = new Set<string>([...SYSTEM_FIELDS, 'active']);

export interface AttributeRuleContext {
  classModel: ClassModel;
  /** does an active class of that name exist (or is it the class being defined)? */
  classExists(name: string): Promise<boolean>;
  /** the plugins' checks (hooks.checkAttribute): refuse, or answer the capabilities they provided */
  checkAttribute?: (attribute: AttributeModel) => Promise<ReadonlySet<string>>;
}

function refuse(code: ErrorCode, message: string, path: string): never {
  throw new DocstackError(code, message, { path });
}

/**
 * Checks an attribute model against the rules of its type and returns it normalised
 * (unset keys dropped, primary keys made mandatory). Every refusal names the attribute.
 */
export async function normalizeAttribute(input: Record<string, unknown>, ctx: AttributeRuleContext): Promise<AttributeModel> {
  const name = input.name;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.length > 64) {
    refuse('DS_ATTRIBUTE_NAME_INVALID', `An attribute name must start with a letter and hold only letters, digits and "_" (got ${JSON.stringify(name)}).`, String(name));
  }
  if (RESERVED_NAMES.has(name)) refuse('DS_ATTRIBUTE_NAME_INVALID', `"${name}" is a system field and cannot be an attribute.`, name);

  const type = input.type as AttributeType;
  if (!(ATTRIBUTE_TYPES as readonly string[]).includes(type)) {
    refuse('DS_ATTRIBUTE_TYPE_UNKNOWN', `"${String(type)}" is not an attribute type; use one of ${ATTRIBUTE_TYPES.join(', ')}.`, name);
  }
  const allowed = new Set<string>(['name', 'type', 'description', ...COMMON_KEYS, ...TYPE_KEYS[type]]);
  for (const key of Object.keys(input)) {
    if (input[key] === undefined) continue;
    if (!allowed.has(key)) {
      const owners = Object.entries(TYPE_KEYS).filter(([, keys]) => keys.includes(key)).map(([t]) => t);
      const hint = owners.length > 0 ? `it applies to ${owners.join(', ')} attributes only` : 'it is not an attribute config key';
      refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"${key}" cannot be set on the ${type} attribute "${name}": ${hint}.`, name);
    }
  }

  const model: AttributeModel = { name, type };
  if (input.description !== undefined) {
    if (typeof input.description !== 'string') refuse('DS_ATTRIBUTE_CONFIG_INVALID', `The description of "${name}" must be a string.`, name);
    model.description = input.description;
  }
  for (const flag of ['mandatory', 'isArray', 'primaryKey', 'encrypted'] as const) {
    const value = input[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"${flag}" of "${name}" must be true or false.`, name);
    if (value) model[flag] = true;
  }
  applyTypeKeys(model, input);
  await checkCombinations(model, ctx);
  if (input.defaultValue !== undefined) model.defaultValue = input.defaultValue;
  return model;
}

function applyTypeKeys(model: AttributeModel, input: Record<string, unknown>): void {
  const { name } = model;
  const wholeAtLeast = (key: 'maxLength' | 'precision', least: number) => {
    const v = input[key];
    if (v === undefined) return;
    if (!Number.isInteger(v) || (v as number) < least) refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"${key}" of "${name}" must be a whole number ≥ ${least}.`, name);
    model[key] = v as number;
  };
  wholeAtLeast('maxLength', 1);
  wholeAtLeast('precision', 0);
  for (const key of ['min', 'max'] as const) {
    const v = input[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"${key}" of "${name}" must be a finite number.`, name);
    if (model.type === 'integer' && !Number.isInteger(v)) refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"${key}" of the integer "${name}" must be whole.`, name);
    model[key] = v;
  }
  if (model.min !== undefined && model.max !== undefined && model.min > model.max) {
    refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"min" (${model.min}) of "${name}" is above "max" (${model.max}).`, name);
  }
  if (input.format !== undefined) {
    if (typeof input.format !== 'string' || input.format.trim() === '') refuse('DS_ATTRIBUTE_CONFIG_INVALID', `"format" of "${name}" must be a non-empty string such as "YYYY-MM-DD".`, name);
    model.format = input.format;
  }
  if (model.type === 'enum') {
    // the specification's form is [{ value }]; plain strings are accepted and stored that way too
    const raw = input.values;
    const values = Array.isArray(raw)
      ? raw.map((v) => (typeof v === 'string' ? v : typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 ? (v as { value?: unknown }).value : undefined))
      : [];
    const ok = values.length > 0 && values.every((v) => typeof v === 'string' && v !== '') && new Set(values).size === values.length;
    if (!ok) refuse('DS_ATTRIBUTE_ENUM_VALUES', `The enum "${name}" needs "values": a non-empty list of distinct values, each { value: "…" } (or a plain string).`, name);
    model.values = (values as string[]).map((value) => ({ value }));
  }
  if (model.type === 'foreign_key') {
    if (typeof input.targetClass !== 'string' || input.targetClass === '') {
      refuse('DS_ATTRIBUTE_TARGET_CLASS', `The foreign_key "${name}" needs a "targetClass".`, name);
    }
    model.targetClass = input.targetClass;
  }
  if (model.type === 'reference') {
    if (typeof input.domain !== 'string' || input.domain === '') refuse('DS_ATTRIBUTE_REFERENCE_DOMAIN', `The reference "${name}" needs a "domain".`, name);
    model.domain = input.domain;
  }
}

async function checkCombinations(model: AttributeModel, ctx: AttributeRuleContext): Promise<void> {
  const { name } = model;
  const cls = ctx.classModel;
  if (model.type === 'reference' && model.isArray) refuse('DS_ATTRIBUTE_REFERENCE_ARRAY', `The reference "${name}" cannot be an array; use a domain N:N relation instead.`, name);
  if (model.encrypted && cls.simple) refuse('DS_ATTRIBUTE_ENCRYPTED_SIMPLE', `"${cls.name}" is a simple class: its documents are stored as given, so "${name}" cannot be encrypted.`, name);
  if (model.primaryKey) {
    if (model.encrypted) refuse('DS_ATTRIBUTE_ENCRYPTED_PRIMARY_KEY', `The primary-key attribute "${name}" cannot be encrypted: keys are indexed in clear.`, name);
    if (!KEY_TYPES.includes(model.type)) refuse('DS_ATTRIBUTE_PRIMARY_KEY', `A ${model.type} attribute cannot be part of a primary key ("${name}").`, name);
    if (model.isArray) refuse('DS_ATTRIBUTE_PRIMARY_KEY', `An array attribute cannot be part of a primary key ("${name}").`, name);
    if (cls.simple) refuse('DS_ATTRIBUTE_PRIMARY_KEY', `"${cls.name}" is a simple class: it keeps no primary-key index.`, name);
    model.mandatory = true; // a key with a hole in it identifies nothing
  }
  const provided = ctx.checkAttribute ? await ctx.checkAttribute(model) : new Set<string>();
  // a reference attribute needs a plugin that places it (the domains plugin provides `reference`)
  if (model.type === 'reference' && !provided.has('reference')) {
    refuse('DS_ATTRIBUTE_REFERENCE_DOMAIN', `The reference "${name}" needs the domains plugin, which this stack does not load.`, name);
  }
  if (model.type === 'foreign_key' && !(await ctx.classExists(model.targetClass!))) {
    refuse('DS_ATTRIBUTE_TARGET_CLASS', `The targetClass "${model.targetClass}" of "${name}" is not a class.`, name);
  }
}
