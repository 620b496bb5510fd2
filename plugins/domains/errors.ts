import { createError } from '../../index.js';

/** The error codes of the domains plugin (docs/errors.md). */
export const DOMAIN_ERRORS = {
  domainInvalid: createError('DS_DOMAIN_INVALID', 'The domain model is invalid (id, name, type, relation, classes).'),
  domainExists: createError('DS_DOMAIN_EXISTS', 'A domain with that name or id already exists.', { status: 409 }),
  domainNotFound: createError('DS_DOMAIN_NOT_FOUND', 'No domain with that name exists.', { status: 404 }),
  relationInvalid: createError('DS_RELATION_INVALID', 'A relation end is missing, inactive or of the wrong class.'),
  relationCardinality: createError('DS_RELATION_CARDINALITY', 'The relation would break the cardinality of its domain.'),
  relationExists: createError('DS_RELATION_EXISTS', 'The two documents are already related in this domain.', { status: 409 }),
  relationNotFound: createError('DS_RELATION_NOT_FOUND', 'No active relation between the two documents in this domain.', { status: 404 }),
  attributeReferenceArray: createError('DS_ATTRIBUTE_REFERENCE_ARRAY', 'A reference attribute cannot be an array.'),
  attributeReferenceDomain: createError('DS_ATTRIBUTE_REFERENCE_DOMAIN', 'A reference attribute needs a domain.'),
  attributeReferencePlacement: createError('DS_ATTRIBUTE_REFERENCE_PLACEMENT', 'A reference attribute is not allowed on this class for its domain.'),
};

/** For `definePlugin({ errors })`. */
export const domainErrorList = Object.values(DOMAIN_ERRORS);
