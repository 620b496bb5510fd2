/**
 * Assertions on refusals, without Node built-ins: test/helpers/stack.ts re-exports them, and so
 * does the Chromium page's helpers shim (test/browser/shims/helpers-stack.ts).
 */
import { expect } from 'vitest';
import { DocstackError, type ErrorCode } from '../../index.js';

/** Runs a promise that must be refused; returns the error for assertions. */
export async function refusal(promise: Promise<unknown>): Promise<Error & { code?: string; path?: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string; path?: string };
  }
  throw new Error('expected a refusal, but the call succeeded');
}

/** The call is refused with a DocstackError of this code (and path, when given). */
export async function expectRefused(promise: Promise<unknown>, code: ErrorCode, path?: string): Promise<DocstackError> {
  const err = await refusal(promise);
  expect(err).toBeInstanceOf(DocstackError);
  expect((err as DocstackError).code).toBe(code);
  if (path !== undefined) expect((err as DocstackError).path).toBe(path);
  return err as DocstackError;
}
