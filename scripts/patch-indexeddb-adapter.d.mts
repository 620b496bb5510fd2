import type { Plugin } from 'esbuild';

/** The esbuild plugin that patches pouchdb-adapter-indexeddb as the browser bundles carry it. */
export const patchedIndexeddbAdapter: Plugin;
