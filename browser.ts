/**
 * docstack for the browser: the engine (everything `docstack` exports) and the presets (the
 * browser preset is the one to use in a page), bundled by `npm run build` into
 * dist/browser/docstack.js — one ESM file, IndexedDB storage, no Node built-ins.
 * `import { createStack, browser } from 'docstack/browser'`; under a bundler's `browser`
 * condition `docstack` and `docstack/presets` resolve to the same file (one copy of the engine).
 */
export * from './index.js';
export * from './plugins.config.js';
