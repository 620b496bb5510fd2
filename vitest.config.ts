import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Plugin tests that start a node, register PouchDB plugins or spawn a child: each in its own worker. */
const KEEP_ISOLATED = [
  'test/plugins/{sync,cloud-queue,drive-sync}/**/*.test.ts',
  'test/plugins/transactions/{crash,replica}.test.ts',
  'test/plugins/encryption/keyring-sync.test.ts',
  'test/plugins/patches/replication.test.ts',
  // reads the process-wide error registry: a test plugin's codes (ACME_…) registered by another file would be seen
  'test/kernel/errors.test.ts',
];

export default defineConfig({
  // the docs' examples import the package by its name: inside the repository, the source
  resolve: {
    alias: [
      { find: /^docstack\/plugin-kit$/, replacement: fileURLToPath(new URL('./kit/index.ts', import.meta.url)) },
      { find: /^docstack\/presets$/, replacement: fileURLToPath(new URL('./plugins.config.ts', import.meta.url)) },
      { find: /^docstack\/plugin-kit$/, replacement: fileURLToPath(new URL('./kit/index.ts', import.meta.url)) },
      { find: /^docstack\/browser$/, replacement: fileURLToPath(new URL('./browser.ts', import.meta.url)) },
      { find: /^docstack\/react$/, replacement: fileURLToPath(new URL('./react.ts', import.meta.url)) },
      { find: /^docstack\/slim$/, replacement: fileURLToPath(new URL('./browser-slim.ts', import.meta.url)) },
      { find: /^docstack\/sql$/, replacement: fileURLToPath(new URL('./plugins/sql/index.ts', import.meta.url)) },
      { find: /^docstack\/server$/, replacement: fileURLToPath(new URL('./server/node.ts', import.meta.url)) },
      { find: /^docstack\/drive-sync$/, replacement: fileURLToPath(new URL('./plugins/drive-sync/index.ts', import.meta.url)) },
      { find: /^docstack\/plugins\/([a-z-]+)$/, replacement: fileURLToPath(new URL('./plugins/$1/index.ts', import.meta.url)) },
      { find: /^docstack\/alasql$/, replacement: 'alasql' }, // the package's copy (dist/vendor); here the devDependency
      { find: /^docstack\/cloud-queue$/, replacement: fileURLToPath(new URL('./plugins/cloud-queue/index.ts', import.meta.url)) },
      { find: /^docstack$/, replacement: fileURLToPath(new URL('./index.ts', import.meta.url)) },
    ],
  },
  test: {
    environment: 'node',
    // two test files at a time on the 2-core CI machine: most of the suite waits on real servers,
    // child processes and password hashing, not on the CPU (vitest's default there is one)
    maxWorkers: 2,
    // leveldb tests open real files; keep a generous bound for the 2-core CI machine
    testTimeout: 30_000,
    // the JSON report lets .ci/run print a plain "N passed, N failed" closing line
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          // engine and plugin tests on memory stacks with unique names: one module graph per worker
          // instead of one per file (importing the engine was ~3/4 of their time: 103 s -> 35 s).
          // A test that starts a node, registers PouchDB plugins or spawns a child keeps to
          // 'isolated': memdown and PouchDB's plugin list are process-wide, and a node's database
          // has a fixed name.
          name: 'shared',
          include: ['test/kernel/**/*.test.ts', 'test/plugins/**/*.test.ts'],
          exclude: KEEP_ISOLATED,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/!(kernel|plugins)/**/*.test.ts', ...KEEP_ISOLATED],
          // the docs' code blocks become test/docs/generated/ before any test runs
          globalSetup: ['test/docs/generate.ts'],
        },
      },
    ],
  },
});
