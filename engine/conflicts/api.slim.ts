import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { listConflicts as fullList, userClassNames as fullNames } from './list.js';
import type { resolveConflict as fullResolve } from './resolve.js';

/**
 * The slim bundle's stand-in for ./api.ts: conflicts come from replication, which the slim preset
 * leaves out. A store another build synced may still hold some: listing or resolving them is
 * refused with DS_NOT_IN_BUILD (never an empty answer that would hide them).
 */
const notInBuild = () => KERNEL_ERRORS.notInBuild('Conflicts (stack.conflicts, stack.resolveConflict) are not in the slim bundle: open the stack from docstack/browser.');

export const userClassNames: typeof fullNames = (names) => [...names];

export const listConflicts: typeof fullList = async () => {
  throw notInBuild();
};

export const resolveConflict: typeof fullResolve = async () => {
  throw notInBuild();
};
