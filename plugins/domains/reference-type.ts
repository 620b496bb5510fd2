import { domainOf } from './model.js';
import { referenceCheck } from './references.js';
import type { DomainRegistry } from './registry.js';
import { type AttributeTypeDefinition } from '../../index.js';
import { DOMAIN_ERRORS } from './errors.js';

export type { ReferenceAttribute } from './model.js';

/**
 * The `reference` attribute type is this plugin's: it keeps the relation in step with the
 * value. Without the plugin a class holding one is read-only (DS_CAPABILITY_MISSING).
 */
export function referenceType(registry: DomainRegistry): AttributeTypeDefinition {
  return {
    type: 'reference',
    label: 'a document id',
    keys: {
      domain: (value, attribute) => {
        if (typeof value !== 'string' || value === '') {
          throw DOMAIN_ERRORS.attributeReferenceDomain(`The reference "${attribute.name}" needs a "domain".`, { path: attribute.name });
        }
        return value;
      },
    },
    check: async (attribute, ctx) => {
      if (attribute.isArray) {
        throw DOMAIN_ERRORS.attributeReferenceArray(`The reference "${attribute.name}" cannot be an array; use a domain N:N relation instead.`, { path: attribute.name });
      }
      if (domainOf(attribute) === undefined) {
        throw DOMAIN_ERRORS.attributeReferenceDomain(`The reference "${attribute.name}" needs a "domain".`, { path: attribute.name });
      }
      await referenceCheck(registry)(ctx.classModel, attribute);
    },
    validate: (value) => (typeof value === 'string' && value !== '' ? undefined : 'expected a document id'),
  };
}
