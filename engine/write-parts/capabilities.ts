import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { ClassModel } from '../../contracts/model.js';
import type { WritePart } from '../../contracts/unit-of-work.js';
import type { AttributeTypes } from '../model/attribute-types.js';

/**
 * A class whose attributes use a type or config key no loaded plugin defines (an encrypted attribute
 * without the encryption plugin, a reference without domains) is read-only on this stack: its
 * writes are refused rather than stored unsealed or unchecked.
 */
export function capabilitiesPart(types: AttributeTypes): WritePart {
  return {
    name: 'capabilities',
    admit(model: ClassModel) {
      for (const attribute of Object.values(model.schema)) {
        const missing = types.missing(attribute);
        if (missing) {
          throw KERNEL_ERRORS.capabilityMissing(
            `"${model.name}" is read-only on this stack: its attribute "${attribute.name}" uses "${missing}", which no loaded plugin defines.`,
            { path: attribute.name, details: { className: model.name, capability: missing } },
          );
        }
      }
    },
    begin: () => undefined,
  };
}
