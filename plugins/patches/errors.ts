import { createError } from '../../index.js';

/** The error codes of the patches plugin (docs/errors.md). */
export const PATCH_ERRORS = {
  patchInvalid: createError('DS_PATCH_INVALID', 'The patch is malformed: target, version (semver) or one of its changes.'),
  patchConflict: createError('DS_PATCH_CONFLICT', 'A different patch with the same target and version already exists.', { status: 409 }),
  patchOrder: createError('DS_PATCH_ORDER', 'A newer version of the target is already applied: patches apply in semver order.', { status: 409 }),
  patchFailed: createError('DS_PATCH_FAILED', 'A change of the patch failed on this replica: its target is stopped here until retried.', { status: 500 }),
  patchBlocked: createError('DS_PATCH_BLOCKED', 'An earlier patch of the same target failed on this replica: retry it first.', { status: 409 }),
};

/** For `definePlugin({ errors })`. */
export const patchErrorList = Object.values(PATCH_ERRORS);
