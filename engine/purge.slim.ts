import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { purgeDocuments as fullPurge } from './purge.js';

export type { StoreDeps } from './purge.js';

/**
 * The slim bundle's stand-in for ./purge.ts: purges serve the ephemeral and retention plugins,
 * which the slim preset leaves out. A direct stack.purgeDocuments call is refused with
 * DS_NOT_IN_BUILD (nothing removed), never answered as if nothing matched.
 */
export const purgeDocuments: typeof fullPurge = async () => {
  throw KERNEL_ERRORS.notInBuild('stack.purgeDocuments is not in the slim bundle: open the stack from docstack/browser.');
};
