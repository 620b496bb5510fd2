import type { fastCheck as fullCheck } from './fast-checks.js';

/**
 * The slim bundle's stand-in for ./fast-checks.ts (scripts/build-browser.mjs swaps it in): no
 * plain check, so zod checks every value, as before they existed. They only save CPU per write;
 * the slim preset trades that for size.
 */
export const fastCheck: typeof fullCheck = () => undefined;
