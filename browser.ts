/**
 * docstack for the browser: the engine (everything `docstack` exports) and the browser preset,
 * bundled by `npm run build` into dist/browser/docstack.js — ESM, IndexedDB storage, no Node
 * built-ins. `import { createStack, browser } from 'docstack/browser'`; under a bundler's
 * `browser` condition `docstack` and `docstack/presets` resolve to the same file (one copy of
 * the engine). SQL is an optional import (browser-sql.ts → dist/browser/docstack-sql.js,
 * `docstack/sql` under the browser condition): the engine's code is shared between the two
 * files (one chunk), so a page that loads both holds one engine.
 */
export * from './index.js';
export { browser, withPlugin, withoutPlugins, type BrowserStack } from './plugins.config.js';
