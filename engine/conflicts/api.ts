/**
 * What the engine's stack calls for conflicts: listing and resolving. The slim browser bundle
 * swaps this file for ./api.slim.ts (scripts/build-browser.mjs): its preset replicates nothing.
 */
export { listConflicts, userClassNames } from './list.js';
export { resolveConflict } from './resolve.js';
