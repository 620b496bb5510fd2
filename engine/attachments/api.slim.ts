import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { listAttachments as fullList, readAttachment as fullRead, withAttachment as fullWith, withoutAttachment as fullWithout } from './api.js';

export type { Attachment, AttachmentInfo, AttachmentReadDeps } from './api.js';

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
export const listAttachments: typeof fullList = (doc) =>
  Object.entries((doc._attachments ?? {}) as Record<string, { content_type?: string; length?: number; digest?: string }>).map(([name, s]) => ({
    name,
    contentType: String(s.content_type ?? ''),
    length: s.length ?? 0,
    digest: String(s.digest ?? ''),
  }));
