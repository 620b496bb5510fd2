import { KERNEL_ERRORS } from '../../contracts/errors.js';

export type { LiveObserver, LiveQueryOf } from './live-handle.js';

/**
 * The slim browser bundle's stand-in for ./live-handle.ts (scripts/build-browser.mjs swaps it in
 * for docstack-slim.js only): that file refuses `stack.live` (live-hub.slim.ts), so no handle is
 * ever made there; the class stays exported under its name, and constructing one says why.
 */
export class LiveHandle<T> {
  declare readonly ready: Promise<T>;

  constructor() {
    throw KERNEL_ERRORS.notInBuild('LiveHandle (live queries) is not in the slim bundle: open the stack from docstack/browser for live queries.');
  }
}
