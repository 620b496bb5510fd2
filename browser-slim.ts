/**
 * The slim browser build (dist/browser/docstack-slim.js; `docstack/slim`): the engine, the
 * validation plugin and the `slim` preset, nothing else — no sync, encryption, transactions,
 * jobs… (plugins.config.ts says what `slim` leaves out). It is a separate engine from
 * dist/browser/docstack.js: a page loads one of the two. Its gzipped size is measured by
 * scripts/build-browser.mjs and test/package/slim-bundle.test.ts.
 */
export * from './index.js';
export { validationPlugin } from './plugins/validation/index.js';
export { slim, withPlugin, withoutPlugins, type SlimStack } from './plugins.config.js';
