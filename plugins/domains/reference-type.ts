import { domainOf } from './model.js';
import { referenceCheck } from './references.js';
import type { DomainRegistry } from './registry.js';
import { type AttributeTypeDefinition, DocstackError } from '../../index.js';

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
          throw new DocstackError('DS_ATTRIBUTE_REFERENCE_DOMAIN', `The reference "${attribute.name}" needs a "domain".`, { path: attribute.name });
        }
        return value;
      },
    },
    check: async (attribute, ctx) => {
      if (attribute.isArray) {
        throw new DocstackError('DS_ATTRIBUTE_REFERENCE_ARRAY', `The reference "${attribute.name}" cannot be an array; use a domain N:N relation instead.`, { path: attribute.name });
      }
      if (domainOf(attribute) === undefined) {
        throw new DocstackError('DS_ATTRIBUTE_REFERENCE_DOMAIN', `The reference "${attribute.name}" needs a "domain".`, { path: attribute.name });
      }
      await referenceCheck(registry)(ctx.classModel, attribute);
    },
    validate: (value) => (typeof value === 'string' && value !== '' ? undefined : 'expected a document id'),
  };
}
