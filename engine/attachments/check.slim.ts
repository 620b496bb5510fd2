import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { WritePart } from '../../contracts/unit-of-work.js';
import type { attachmentsPart as fullPart } from './check.js';

export { SEALED_ATTACHMENT_ALLOWANCE } from './attachment-type.js';

/**
 * The slim bundle's stand-in for ./check.ts: a write carrying a new file (data, not a stub of a
 * stored one) is refused with DS_NOT_IN_BUILD, never stored unchecked.
 */
export const attachmentsPart: typeof fullPart = (): WritePart => ({
  name: 'attachments',
  begin(work) {
    const carrying = work.items.some((item) => Object.values((item.doc._attachments ?? {}) as Record<string, { data?: unknown }>).some((a) => a?.data !== undefined));
    if (!carrying) return undefined;
    return {
      checked: () => {
        throw KERNEL_ERRORS.notInBuild('Attachments are not in the slim bundle: open the stack from docstack/browser.');
      },
    };
  },
});
