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
  // class models admitted, with the types' version they were checked against (a class model
  // object is one revision of a class: its schema does not change under it)
  const admitted = new WeakMap<ClassModel, number>();
  return {
    name: 'capabilities',
    admit(model: ClassModel) {
      if (admitted.get(model) === types.version) return;
      for (const attribute of Object.values(model.schema)) {
        const missing = types.missing(attribute);
        if (missing) {
          throw KERNEL_ERRORS.capabilityMissing(
            `"${model.name}" is read-only on this stack: its attribute "${attribute.name}" uses "${missing}", which no loaded plugin defines.`,
            { path: attribute.name, details: { className: model.name, capability: missing } },
          );
        }
      }
      admitted.set(model, types.version);
    },
    begin: nothing,
  };
}

/** the part adds nothing to a write: one function for every stack (docs/benchmarks.md#code-shared-by-every-stack) */
const nothing = (): undefined => undefined;
