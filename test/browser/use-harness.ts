import { afterAll, beforeAll } from 'vitest';
import { startHarness, type Harness } from './harness.js';

/**
 * One harness for a test file: started before its tests, closed after. A harness that could not
 * start (Chromium missing) fails every test of the file with its message — nothing is skipped.
 */
export function useHarness(pageEntry?: string): () => Harness {
  let harness: Harness | null = null;
  let failure: unknown = null;
  beforeAll(async () => {
    try {
      harness = await startHarness(pageEntry);
    } catch (err) {
      failure = err;
    }
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    if (!harness) throw failure ?? new Error('the browser harness did not start');
    return harness;
  };
}
