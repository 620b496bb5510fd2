import { KERNEL_ERRORS, type AttributeModel, type ConfigKeyDefinition } from '../../index.js';
import { ENCRYPTION_ERRORS } from './errors.js';

/** Is this attribute stored sealed (`encrypted: true`, a config key this plugin defines)? */
export const isEncrypted = (attribute: AttributeModel): boolean => attribute.encrypted === true;

/**
 * `encrypted: true` on any attribute type: without this plugin a class holding one is
 * read-only (DS_CAPABILITY_MISSING), never written in clear.
 */
export const encryptedKey: ConfigKeyDefinition = {
  key: 'encrypted',
  rule: (value, attribute) => {
    if (typeof value !== 'boolean') throw KERNEL_ERRORS.attributeConfigInvalid(`"encrypted" of "${attribute.name}" must be true or false.`, { path: attribute.name });
    return value ? true : undefined;
  },
  check: (attribute, { classModel }) => {
    if (!isEncrypted(attribute)) return;
    const { name } = attribute;
    if (classModel.simple) {
      throw ENCRYPTION_ERRORS.attributeEncryptedSimple(`"${classModel.name}" is a simple class: its documents are stored as given, so "${name}" cannot be encrypted.`, { path: name });
    }
    if (attribute.primaryKey) {
      throw ENCRYPTION_ERRORS.attributeEncryptedPrimaryKey(`The primary-key attribute "${name}" cannot be encrypted: keys are indexed in clear.`, { path: name });
    }
  },
};
