import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { LiveHub as FullLiveHub } from './live-hub.js';
import type { LiveQuery } from './live-query.js';

/**
 * The slim browser bundle's stand-in for ./live-hub.ts (scripts/build-browser.mjs swaps it in
 * for docstack-slim.js only): live queries (≈ 2 kB gzipped) would take the slim file past its
 * 73 kB budget, so `stack.live` is refused there with DS_NOT_IN_BUILD, naming the bundle that
 * has it.
 */
export class LiveHub implements Pick<FullLiveHub, 'open' | 'reread'> {
  constructor(_stack: unknown) {}

  open(): LiveQuery {
    throw KERNEL_ERRORS.notInBuild('stack.live (live queries) is not in the slim bundle: open the stack from docstack/browser for live queries.');
  }

  reread(): void {}
}
