import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createStack, type ClientStack, type PluginEntry, type StackOptions } from '../../index.js';
import { browser, type BrowserStack } from '../../plugins.config.js';
import { rawDatabase } from '../../storage/raw-database.js';

let counter = 0;

/**
 * The adapters a test opens its stores on: in Node memory (quick) and leveldb (survives a
 * reopen); test files that also run in Chromium (test/browser/suites.test.ts) use these, and the
 * page's helpers answer IndexedDB for both.
 */
export const testAdapter = 'memory' as const;
export const durableAdapter = 'leveldb' as const;
const open: ClientStack[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const stack of open.splice(0)) await stack.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A unique name per call: memory stores of one name are shared within a process. */
export function uniqueName(prefix = 'test'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Date.now()}`;
}

/** A memory stack with the browser preset, closed after the test. */
export async function memoryStack(options: Partial<StackOptions> = {}): Promise<BrowserStack> {
  const stack = (await createStack({ name: uniqueName(), adapter: 'memory', plugins: browser, ...options })) as BrowserStack;
  open.push(stack);
  return stack;
}

/**
 * A memory stack with no plugin at all: the kernel alone. test/kernel uses it, so a kernel test
 * that passes only thanks to a plugin (validation's defaults, encryption's scopes) fails there.
 */
export async function kernelStack(options: Partial<StackOptions> = {}): Promise<ClientStack> {
  const stack = await createStack({ name: uniqueName('kernel'), adapter: 'memory', plugins: [], ...options });
  open.push(stack);
  return stack;
}

/**
 * The PouchDB store under a stack, for what only a test does: forge a stored state the engine
 * would refuse to write, spy on storage calls, replicate two stores directly. Plugins and the
 * server use `stack.storage`; read through it here too where it is enough.
 */
export const rawDb = rawDatabase;

/** Counts the storage calls of a stack's store from now on (the documents of each call too). */
export function countCalls(stack: ClientStack): { calls: number; docs: number[] } {
  const db = rawDb(stack) as unknown as { bulkDocs: (...args: unknown[]) => Promise<unknown> };
  const seen = { calls: 0, docs: [] as number[] };
  const inner = db.bulkDocs.bind(db);
  db.bulkDocs = (...args: unknown[]) => {
    seen.calls++;
    seen.docs.push((args[0] as unknown[]).length);
    return inner(...args);
  };
  return seen;
}

/** Closes with the other stacks after the test (for stacks opened by hand). */
export function track<S extends ClientStack>(stack: S): S {
  open.push(stack);
  return stack;
}

/** A temp folder for leveldb stores, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'docstack-test-'));
  dirs.push(dir);
  return dir;
}

export { expectRefused, refusal } from './refusals.js';

/** The browser preset without the named plugins (entries may be [plugin, options] pairs). */
export function browserWithout(...names: string[]): PluginEntry[] {
  return browser.filter((entry) => {
    if (!entry) return false;
    const plugin = Array.isArray(entry) ? entry[0] : entry;
    return !names.includes((plugin as { name: string }).name);
  });
}

/** Class names a user defined: the meta-classes and plugins' `~` system classes left out. */
export async function userClasses(stack: ClientStack): Promise<string[]> {
  return (await stack.listClasses()).filter((name) => !name.startsWith('~'));
}
