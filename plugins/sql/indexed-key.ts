import { isIndexed, kindOf } from './catalog.js';
import { KERNEL_ERRORS, type ConfigKeyDefinition } from '../../index.js';

/**
 * `indexed: true` on a scalar attribute: the sql plugin keeps a secondary index of its values
 * (plugins/sql/indexes), which SQL WHERE clauses and findDocuments selectors read through.
 * Without the plugin a class holding one is read-only (DS_CAPABILITY_MISSING), like any key no
 * loaded plugin defines: its index would silently fall behind.
 */
export const indexedKey: ConfigKeyDefinition = {
  key: 'indexed',
  rule: (value, attribute) => {
    if (typeof value !== 'boolean') throw KERNEL_ERRORS.attributeConfigInvalid(`"indexed" of "${attribute.name}" must be true or false.`, { path: attribute.name });
    return value ? true : undefined;
  },
  check: (attribute) => {
    if (!isIndexed(attribute)) return;
    const { name } = attribute;
    if (attribute.encrypted === true) {
      throw KERNEL_ERRORS.attributeConfigInvalid(`"${name}" is encrypted: an index would hold its values in clear, so it cannot be indexed.`, { path: name });
    }
    if (kindOf(attribute) === 'other') {
      throw KERNEL_ERRORS.attributeConfigInvalid(`"${name}" (${attribute.isArray ? 'a list' : attribute.type}) cannot be indexed: only single numbers, texts, dates, booleans and ids can.`, { path: name });
    }
  },
};
