import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // leveldb tests open real files; keep a generous bound for the 2-core CI machine
    testTimeout: 30_000,
    // the JSON report lets .ci/run print a plain "N passed, N failed" closing line
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    hookTimeout: 30_000,
  },
});
