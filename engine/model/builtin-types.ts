import { KERNEL_ERRORS, type ErrorFactory } from '../../contracts/errors.js';
import type { AttributeContext } from '../../kernel/hooks.js';
import { AttributeTypes, type AttributeTypeDefinition, type ConfigKeyRule } from './attribute-types.js';
import { COMMON_KEYS } from './attribute-rules.js';
import type { AttributeModel } from '../../contracts/model.js';
import { attachmentType } from '../attachments/attachment-type.js';

/** The attribute types the kernel itself defines; plugins add theirs (docs/plugins.md). */

const refuse = (message: string, attribute: AttributeModel, error: ErrorFactory = KERNEL_ERRORS.attributeConfigInvalid): never => {
  throw error(message, { path: attribute.name });
};

const wholeAtLeast = (key: string, least: number): ConfigKeyRule => (v, a) =>
  Number.isInteger(v) && (v as number) >= least ? v : refuse(`"${key}" of "${a.name}" must be a whole number ≥ ${least}.`, a);

const bound = (key: 'min' | 'max'): ConfigKeyRule => (v, a) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) refuse(`"${key}" of "${a.name}" must be a finite number.`, a);
  if (a.type === 'integer' && !Number.isInteger(v)) refuse(`"${key}" of the integer "${a.name}" must be whole.`, a);
  return v;
};

const boundsInOrder = (a: AttributeModel): void => {
  if (typeof a.min === 'number' && typeof a.max === 'number' && a.min > a.max) refuse(`"min" (${a.min}) of "${a.name}" is above "max" (${a.max}).`, a);
};

const format: ConfigKeyRule = (v, a) =>
  typeof v === 'string' && v.trim() !== '' ? v : refuse(`"format" of "${a.name}" must be a non-empty string such as "YYYY-MM-DD".`, a);

// a date bound is text in the attribute's format; the validation plugin reads it (and checks it is
// a date of that format, min before max): the kernel alone does not compare dates
const dateBound = (key: 'min' | 'max'): ConfigKeyRule => (v, a) =>
  typeof v === 'string' && v.trim() !== '' ? v : refuse(`"${key}" of the date "${a.name}" must be a date written in its format (text).`, a);

// the specification's form is [{ value }]; plain strings are accepted and stored that way too
const enumList: ConfigKeyRule = (raw, a) => {
  const values = Array.isArray(raw)
    ? raw.map((v) => (typeof v === 'string' ? v : typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 ? (v as { value?: unknown }).value : undefined))
    : [];
  const ok = values.length > 0 && values.every((v) => typeof v === 'string' && v !== '') && new Set(values).size === values.length;
  if (!ok) refuse(`The enum "${a.name}" needs "values": a non-empty list of distinct values, each { value: "…" } (or a plain string).`, a, KERNEL_ERRORS.attributeEnumValues);
  return (values as string[]).map((value) => ({ value }));
};

const targetClass: ConfigKeyRule = (v, a) =>
  typeof v === 'string' && v !== '' ? v : refuse(`The foreign_key "${a.name}" needs a "targetClass".`, a, KERNEL_ERRORS.attributeTargetClass);

async function targetExists(a: AttributeModel, { stack, classModel, arriving }: AttributeContext): Promise<void> {
  if (a.targetClass === undefined) refuse(`The foreign_key "${a.name}" needs a "targetClass".`, a, KERNEL_ERRORS.attributeTargetClass);
  if (a.targetClass === classModel.name || arriving?.has(a.targetClass!)) return;
  const target = await stack.classCache.get(a.targetClass!);
  if (target?.active === true) return;
  // a class not here at all may still arrive (stack.ingest holds the class document for it)
  throw KERNEL_ERRORS.attributeTargetClass(`The targetClass "${a.targetClass}" of "${a.name}" is not a class.`, {
    path: a.name,
    details: { targetClass: a.targetClass, ...(target ? {} : { waitingFor: [a.targetClass] }) },
  });
}

export const BUILTIN_TYPES: readonly AttributeTypeDefinition[] = [
  { type: 'string', keyable: true, keys: { maxLength: wholeAtLeast('maxLength', 1) } },
  { type: 'integer', keyable: true, keys: { min: bound('min'), max: bound('max') }, check: boundsInOrder },
  { type: 'decimal', keyable: true, keys: { min: bound('min'), max: bound('max'), precision: wholeAtLeast('precision', 0) }, check: boundsInOrder },
  { type: 'boolean', keyable: true },
  { type: 'date', keyable: true, keys: { format, min: dateBound('min'), max: dateBound('max') } },
  {
    type: 'enum',
    keyable: true,
    keys: { values: enumList },
    // an enum without values has no value to hold
    check: (a) => void (a.values === undefined && enumList(undefined, a, {})),
  },
  { type: 'object' },
  { type: 'foreign_key', keyable: true, keys: { targetClass }, check: targetExists },
  attachmentType,
];

/** A stack's type registry, holding the kernel's types. */
export function kernelAttributeTypes(): AttributeTypes {
  const types = new AttributeTypes(COMMON_KEYS);
  for (const definition of BUILTIN_TYPES) types.defineType(definition, 'the kernel');
  return types;
}
