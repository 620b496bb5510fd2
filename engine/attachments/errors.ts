import { createError, registerErrors } from '../../contracts/errors.js';

/**
 * The engine's attachment codes (docs/errors.md), apart from KERNEL_ERRORS: only the modules that
 * check and read files import them, so the slim bundle (whose stand-ins refuse files with
 * DS_NOT_IN_BUILD) carries none. Registered as the kernel's, as the kernel's own codes are.
 */
export const ATTACHMENT_ERRORS = {
  attachmentInvalid: createError('DS_ATTACHMENT_INVALID', 'An attachment is malformed, or not named by an attachment attribute of its class.'),
  attachmentTooLarge: createError('DS_ATTACHMENT_TOO_LARGE', "An attachment is larger than its maxBytes.", { status: 413 }),
  attachmentType: createError('DS_ATTACHMENT_TYPE', "An attachment's type is not in its types.", { status: 415 }),
  attachmentNotFound: createError('DS_ATTACHMENT_NOT_FOUND', 'The document has no such attachment.', { status: 404 }),
};

registerErrors(Object.values(ATTACHMENT_ERRORS), 'kernel');
