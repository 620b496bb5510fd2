/**
 * Node test files run unchanged in Chromium on IndexedDB: the SQL suite (test/plugins/sql) and
 * the ingest's (test/kernel/ingest.test.ts: what replication stores, with its key entries and
 * counters in one call) are bundled into a page (suites-page.ts) with vitest's own `expect`,
 * against the real browser bundle, with alasql loaded lazily through an import map as an app would.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useHarness } from './use-harness.js';

const harness = useHarness(fileURLToPath(new URL('./suites-page.ts', import.meta.url)));
const FILES = [...['language', 'statements', 'writes', 'encryption', 'indexes'].map((name) => `../plugins/sql/${name}.test.ts`), '../kernel/ingest.test.ts'].map((path) => new URL(path, import.meta.url));

interface Outcome {
  name: string;
  ok: boolean;
  error?: string;
}

describe('test files in Chromium (IndexedDB)', () => {
  it('the SQL and ingest suites pass in the page, every test of its files', async () => {
    const tab = await harness().page(await harness().context());
    const outcomes = await tab.run<Outcome[]>('all');
    // every `it(` of the files ran in the page: nothing was left out by the bundling
    const declared = (await Promise.all(FILES.map((url) => readFile(url, 'utf8')))).reduce((n, text) => n + (text.match(/^\s*it\(/gm)?.length ?? 0), 0);
    expect(outcomes.length).toBe(declared);
    expect(declared).toBeGreaterThan(20);
    const failed = outcomes.filter((outcome) => !outcome.ok);
    expect(failed.map((f) => `${f.name}\n${f.error}`).join('\n\n')).toBe('');
    expect(tab.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  }, 120_000);
});
