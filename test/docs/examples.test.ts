import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examples } from './generated/index.js';

/**
 * Every TypeScript block of README.md and docs/*.md, extracted by scripts/doc-examples.mjs (run by
 * `npm test` before tsc) and executed here, in a temp folder (examples may open ./data).
 */
const home = process.cwd();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docstack-docs-'));
  process.chdir(dir);
});
afterAll(async () => {
  process.chdir(home);
  await rm(dir, { recursive: true, force: true });
});

describe('the code in the docs runs', () => {
  it('extracted the blocks', () => {
    expect(examples.length).toBeGreaterThan(8);
  });
  for (const { source, run } of examples) {
    it(source, async () => {
      await run();
    }, 60_000);
  }
});
