import { createError } from '../../index.js';

/** The error codes of the validation plugin (docs/errors.md). */
export const VALIDATION_ERRORS = {
  validationMandatory: createError('DS_VALIDATION_MANDATORY', 'A mandatory attribute is missing or null.'),
  validationType: createError('DS_VALIDATION_TYPE', 'A value does not have the attribute type.'),
  validationInteger: createError('DS_VALIDATION_INTEGER', 'An integer attribute was given a number that is not whole.'),
  validationPrecision: createError('DS_VALIDATION_PRECISION', 'A decimal has more decimal places than the attribute precision.'),
  validationMaxLength: createError('DS_VALIDATION_MAX_LENGTH', 'A string is longer than the attribute maxLength.'),
  validationRange: createError('DS_VALIDATION_RANGE', 'A number or a date is below min or above max.'),
  validationEnum: createError('DS_VALIDATION_ENUM', 'A value is not one of the enum values.'),
  validationDateFormat: createError('DS_VALIDATION_DATE_FORMAT', 'A date does not match the attribute format (or is not a date).'),
  validationArray: createError('DS_VALIDATION_ARRAY', 'An array attribute was not given an array (or a scalar one was).'),
  validationForeignKey: createError('DS_VALIDATION_FOREIGN_KEY', 'A foreign key names a document that is missing, inactive or of another class.'),
  validationUnknownAttribute: createError('DS_VALIDATION_UNKNOWN_ATTRIBUTE', 'The document has attributes its class does not define.'),
};

/** For `definePlugin({ errors })`. */
export const validationErrorList = Object.values(VALIDATION_ERRORS);
