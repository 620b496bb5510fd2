import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { readAttachment as fullRead, withAttachment as fullWith, withoutAttachment as fullWithout } from './api.js';

export type { Attachment, AttachmentReadDeps } from './api.js';

/**
 * The slim bundle's stand-in for ./api.ts: files (their bytes, base64, checks) stay out of the
 * slim bundle's budget. putAttachment, getAttachment and removeAttachment are refused with
 * DS_NOT_IN_BUILD (nothing written), never answered as if a document had no file.
 */
const refuse = async (): Promise<never> => {
  throw KERNEL_ERRORS.notInBuild('Attachments are not in the slim bundle: open the stack from docstack/browser.');
};

export const withAttachment: typeof fullWith = refuse;
export const withoutAttachment: typeof fullWithout = () => {
  throw KERNEL_ERRORS.notInBuild('Attachments are not in the slim bundle: open the stack from docstack/browser.');
};
export const readAttachment: typeof fullRead = refuse;
