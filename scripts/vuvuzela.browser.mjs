/**
 * The browser bundles' stand-in for vuvuzela (scripts/build-browser.mjs): pouchdb-json falls back to
 * it only when JSON.parse / JSON.stringify overflow the stack (a document nested thousands of
 * levels deep). The browser builds refuse such a document with this error instead of carrying a
 * second JSON implementation (1.6 kB minified).
 */
const refuse = () => {
  throw new RangeError('This document is nested too deeply for the browser build: JSON.parse / JSON.stringify overflowed the stack.');
};
export const parse = refuse;
export const stringify = refuse;
export default { parse, stringify };
