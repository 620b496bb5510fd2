/**
 * test/helpers/stack.ts for the Chromium page: the same helpers over IndexedDB (no memory or
 * leveldb adapter in the browser bundle, no folders). `testAdapter`/`durableAdapter` let a test
 * file written for Node open its stores on IndexedDB here.
 */
import { afterEach } from 'vitest';
import { createStack, type ClientStack, type StackOptions } from '../../../index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';

let counter = 0;
const open: ClientStack[] = [];

afterEach(async () => {
  for (const stack of open.splice(0)) await stack.close();
});

export const testAdapter = 'indexeddb' as const;
export const durableAdapter = 'indexeddb' as const;

export function uniqueName(prefix = 'test'): string {
  counter += 1;
  return `${prefix}-${counter}-${Date.now()}`;
}

/** A stack with the browser preset (on IndexedDB here), closed after the test. */
export async function memoryStack(options: Partial<StackOptions> = {}): Promise<BrowserStack> {
  return track((await createStack({ name: uniqueName(), adapter: 'indexeddb', plugins: browser, ...options })) as BrowserStack);
}

export function track<S extends ClientStack>(stack: S): S {
  open.push(stack);
  return stack;
}

/** IndexedDB has no folders: the data directory is ignored. */
export async function tempDir(): Promise<string> {
  return '';
}

export { expectRefused, refusal } from '../../helpers/refusals.js';
