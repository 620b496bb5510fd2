import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildBrowser, GZIP_BUDGET } from '../../scripts/build-browser.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the browser bundle (dist/browser/docstack.js)', () => {
  it('is one ESM file with the engine, the presets and IndexedDB, no Node built-in or Node adapter, within its gzipped budget', async () => {
    const out = await mkdtemp(join(tmpdir(), 'docstack-bundle-'));
    const built = await buildBrowser({ outdir: out, quiet: true });
    const inputs = Object.keys(built.metafile.inputs);
    // IndexedDB through pouchdb-adapter-indexeddb, patched (scripts/patch-indexeddb-adapter.mjs); pouchdb-adapter-idb is handed in by an app that selects it
    expect(inputs.some((i) => i.includes('pouchdb-adapter-indexeddb'))).toBe(true);
    expect(inputs.filter((i) => i.includes('pouchdb-adapter-idb'))).toEqual([]);
    expect(inputs.filter((i) => /pouchdb-adapter-(leveldb|memory)|leveldown|memdown|storage-adapters\.ts$/.test(i))).toEqual([]);
    expect(inputs).toContain('storage/storage-adapters.browser.ts');
    // values' AES-GCM: WebCrypto in the bundle, never Node's node:crypto version
    expect(inputs).toContain('plugins/encryption/aes-gcm.browser.ts');
    expect(inputs).not.toContain('plugins/encryption/aes-gcm.ts');
    // reads by id through PouchDB's public get: the adapter-direct read is Node's (no bytes for it here)
    expect(inputs).toContain('storage/direct-get.slim.ts');
    expect(inputs).not.toContain('storage/direct-get.ts');
    // nor Node's document cache (leveldb and memory stores only: storage/document-cache.ts)
    expect(inputs).not.toContain('storage/document-cache.ts');
    // the build flag is defined (types/build-flags.d.ts): no browser file reads it at run time,
    // so the minifier leaves out the Node-only paths it guards (what keeps the file in its budget)
    for (const file of ['docstack.js', 'docstack-slim.js', 'docstack-sql.js']) expect(await readFile(join(out, file), 'utf8')).not.toContain('docstackBrowserBuild');
    // issues 9 and 27 aimed at 150 kB gzipped for the browser preset; explicit ids, live queries
    // and attachments (issues 30, 31) took it to 152.7: the budget is 155 kB, never more
    expect(GZIP_BUDGET).toBeLessThanOrEqual(155 * 1024);
    expect(built.gzipped).toBeLessThanOrEqual(GZIP_BUDGET);
    // validation and triggers use zod/mini: zod's classic API (≈ 17 kB gzipped more) is not bundled
    expect(inputs.filter((i) => /node_modules\/zod\/(v4\/classic|v3)\//.test(i))).toEqual([]);
    expect(inputs.some((i) => /node_modules\/zod\/v4\/mini\//.test(i))).toBe(true);
    const output = (name: string) => Object.entries(built.metafile.outputs).find(([file]) => file.endsWith(`/${name}`))![1];
    expect(output('docstack.js').exports).toEqual(expect.arrayContaining(['createStack', 'Class', 'DocstackError', 'browser', 'encryptionPlugin', 'syncPlugin']));
    // SQL is the optional second file: the preset's file holds none of it, the second holds the engine and the plugin
    expect(Object.keys(output('docstack.js').inputs).filter((i) => i.includes('plugins/sql/'))).toEqual([]);
    expect(output('docstack.js').exports).not.toContain('sqlPlugin');
    expect(output('docstack-sql.js').exports).toEqual(expect.arrayContaining(['createStack', 'browser', 'browserWithSql', 'sqlPlugin']));
    expect(Object.keys(output('docstack-sql.js').inputs).some((i) => i.includes('plugins/sql/'))).toBe(true);
    expect(built.sqlGzipped).toBeGreaterThan(built.gzipped);
  }, 60_000);

  it('the build fails when a Node built-in creeps in (the check can fail)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-bundle-bad-'));
    const entry = join(dir, 'entry.ts');
    await writeFile(entry, "import { readFile } from 'node:fs/promises';\nimport { createHash } from 'crypto';\nexport const read = [readFile, createHash, Buffer.from('x')];\n");
    const failure = await buildBrowser({ outdir: dir, quiet: true, entry }).then(() => new Error('built'), (err: Error) => err);
    expect(String(failure.message)).toMatch(/Node built-ins/);
    expect(String(failure.message)).toMatch(/node:fs\/promises/);
    expect(String(failure.message)).toMatch(/imports crypto/);
    expect(String(failure.message)).toMatch(/Buffer/);
  }, 60_000);

  it('is what a bundler resolves for docstack/browser, and for docstack, docstack/presets and docstack/plugins/<name> under the browser condition', async () => {
    await buildBrowser({ quiet: true });
    const app = await mkdtemp(join(tmpdir(), 'docstack-app-'));
    await mkdir(join(app, 'node_modules'));
    await symlink(root, join(app, 'node_modules', 'docstack'), 'dir');
    await writeFile(join(app, 'app.js'), "import { createStack } from 'docstack/browser';\nimport { browser } from 'docstack/presets';\nimport { Class } from 'docstack';\nimport { syncPlugin } from 'docstack/plugins/sync';\nexport default [createStack, browser, Class, syncPlugin];\n");
    const result = await esbuild.build({ absWorkingDir: app, entryPoints: ['app.js'], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const packageInputs = Object.keys(result.metafile.inputs).filter((i) => i !== 'app.js');
    expect(packageInputs).toHaveLength(1);
    expect(packageInputs[0]).toMatch(/dist\/browser\/docstack\.js$/);
  }, 60_000);
});
