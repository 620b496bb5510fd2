import { createError } from '../../index.js';

/** The error codes of the triggers plugin (docs/errors.md). */
export const TRIGGER_ERRORS = {
  triggerUnavailable: createError('DS_TRIGGER_UNAVAILABLE', 'Triggers need the triggers plugin, which this stack does not load.'),
  triggerInvalid: createError('DS_TRIGGER_INVALID', 'The trigger model is invalid.'),
  triggerExists: createError('DS_TRIGGER_EXISTS', 'The class already has a trigger with that name.', { status: 409 }),
  triggerNotFound: createError('DS_TRIGGER_NOT_FOUND', 'The class has no trigger with that name.', { status: 404 }),
  triggerRefused: createError('DS_TRIGGER_REFUSED', 'A before-trigger refused the write.'),
  triggerDepth: createError('DS_TRIGGER_DEPTH', 'Writes made by triggers nested deeper than the limit.'),
};

/** For `definePlugin({ errors })`. */
export const triggerErrorList = Object.values(TRIGGER_ERRORS);
