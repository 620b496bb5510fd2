/**
 * Attribute-model refusal helpers and cases shared by the kernel's attribute tests (run with no
 * plugin) and the validation plugin's (defaultValue checks).
 */
import { expect } from 'vitest';
import { Attribute, Class, type AttributeConfig, type ClientStack, type ErrorCode } from '../../index.js';
import { expectRefused } from './stack.js';

export const classDoc = (stack: ClientStack, name: string) => stack.storage.get(name);
export const classExists = async (stack: ClientStack, name: string) => {
  const stored = (await stack.storage.get(name)) !== null;
  return stored || (await stack.listClasses()).includes(name);
};

/** Attribute.create is refused with `code`, and the class document is exactly what it was. */
export async function refusedAttribute(cls: Class, name: string, type: string, config: Record<string, unknown>, code: ErrorCode, path = name) {
  const before = await classDoc(cls.stack, cls.name);
  const err = await expectRefused(Attribute.create(cls, name, type, '', config as AttributeConfig), code, path);
  expect(await classDoc(cls.stack, cls.name)).toEqual(before);
  expect(Object.keys((await cls.stack.requireClass(cls.name)).schema)).toEqual(Object.keys((before as unknown as { schema: object }).schema));
  return err;
}

/** Class.create is refused with `code`, and no class of that name was stored. */
export async function refusedClass(stack: ClientStack, name: string, schema: object, code: ErrorCode, path?: string, options = {}) {
  const err = await expectRefused(Class.create(stack, name, 'class', '', schema as Record<string, Record<string, unknown>>, options), code, path);
  expect(await classExists(stack, name)).toBe(false);
  return err;
}

export interface Case {
  label: string;
  name: string;
  type: string;
  config?: Record<string, unknown>;
  code: ErrorCode;
  /** the plugin that defines the type or key the case is about (the kernel's own when absent) */
  plugin?: 'domains' | 'encryption';
}

export const schemaCases: Case[] = [
  { label: 'unknown type', name: 'x', type: 'text', code: 'DS_ATTRIBUTE_TYPE_UNKNOWN' },
  { label: 'enum without values', name: 'e', type: 'enum', code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with no values', name: 'e', type: 'enum', config: { values: [] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with duplicate values', name: 'e', type: 'enum', config: { values: ['a', 'b', 'a'] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with an empty value', name: 'e', type: 'enum', config: { values: ['a', ''] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with a non-string value', name: 'e', type: 'enum', config: { values: ['a', 1] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with a { value } that is not a string', name: 'e', type: 'enum', config: { values: [{ value: 'a' }, { value: 2 }] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with an object that is not { value }', name: 'e', type: 'enum', config: { values: [{ value: 'a', label: 'A' }] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'enum with duplicate { value } objects', name: 'e', type: 'enum', config: { values: [{ value: 'a' }, 'a'] }, code: 'DS_ATTRIBUTE_ENUM_VALUES' },
  { label: 'foreign_key without targetClass', name: 'fk', type: 'foreign_key', code: 'DS_ATTRIBUTE_TARGET_CLASS' },
  { label: 'foreign_key to a class that does not exist', name: 'fk', type: 'foreign_key', config: { targetClass: 'Nowhere' }, code: 'DS_ATTRIBUTE_TARGET_CLASS' },
  { label: 'reference as an array', name: 'r', type: 'reference', config: { domain: 'D', isArray: true }, code: 'DS_ATTRIBUTE_REFERENCE_ARRAY', plugin: 'domains' },
  { label: 'reference without domain', name: 'r', type: 'reference', code: 'DS_ATTRIBUTE_REFERENCE_DOMAIN', plugin: 'domains' },
  { label: 'encrypted primary key', name: 'k', type: 'string', config: { primaryKey: true, encrypted: true }, code: 'DS_ATTRIBUTE_ENCRYPTED_PRIMARY_KEY', plugin: 'encryption' },
  { label: 'primary key on an object', name: 'k', type: 'object', config: { primaryKey: true }, code: 'DS_ATTRIBUTE_PRIMARY_KEY' },
  { label: 'primary key on an array', name: 'k', type: 'string', config: { primaryKey: true, isArray: true }, code: 'DS_ATTRIBUTE_PRIMARY_KEY' },
  { label: 'maxLength on an integer', name: 'n', type: 'integer', config: { maxLength: 3 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'precision on an integer', name: 'n', type: 'integer', config: { precision: 2 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'format on a string', name: 's', type: 'string', config: { format: 'date' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'values on a string', name: 's', type: 'string', config: { values: ['a'] }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'targetClass on a string', name: 's', type: 'string', config: { targetClass: 'Thing' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'min on a boolean', name: 'b', type: 'boolean', config: { min: 0 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'a key that is no config key', name: 's', type: 'string', config: { colour: 'red' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'min above max', name: 'n', type: 'integer', config: { min: 5, max: 4 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'decimal min above max', name: 'd', type: 'decimal', config: { min: 1.5, max: 1.25 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'fractional integer bound', name: 'n', type: 'integer', config: { max: 4.5 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'maxLength 0', name: 's', type: 'string', config: { maxLength: 0 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'negative precision', name: 'd', type: 'decimal', config: { precision: -1 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'date min that is not text', name: 'd', type: 'date', config: { min: 20240101 }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'date max that is empty', name: 'd', type: 'date', config: { max: ' ' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'empty date format', name: 'd', type: 'date', config: { format: ' ' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  { label: 'mandatory that is not a boolean', name: 's', type: 'string', config: { mandatory: 'yes' }, code: 'DS_ATTRIBUTE_CONFIG_INVALID' },
  ...['1abc', 'has-dash', 'has space', 'é', 'a'.repeat(65)].map((name) => ({ label: `name ${JSON.stringify(name.slice(0, 12))}`, name, type: 'string', code: 'DS_ATTRIBUTE_NAME_INVALID' as const })),
  ...['_id', '_rev', '~class', '~createTimestamp', '~updateTimestamp', 'active', '~scope'].map((name) => ({ label: `system field ${name}`, name, type: 'string', code: 'DS_ATTRIBUTE_NAME_INVALID' as const })),
  { label: 'integer default that is text', name: 'n', type: 'integer', config: { defaultValue: 'one' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'integer default above max', name: 'n', type: 'integer', config: { max: 3, defaultValue: 4 }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'enum default not in values', name: 'e', type: 'enum', config: { values: ['a', 'b'], defaultValue: 'c' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'string default too long', name: 's', type: 'string', config: { maxLength: 2, defaultValue: 'abc' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'date default that does not exist', name: 'd', type: 'date', config: { defaultValue: '2023-02-30' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'scalar default of an array', name: 's', type: 'string', config: { isArray: true, defaultValue: 'a' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
  { label: 'foreign_key default naming no document', name: 'fk', type: 'foreign_key', config: { targetClass: 'Thing', defaultValue: 'Thing-none' }, code: 'DS_ATTRIBUTE_DEFAULT_INVALID' },
];
