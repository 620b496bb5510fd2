import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { patchedIndexeddbAdapter } from '../../scripts/patch-indexeddb-adapter.mjs';

const require = createRequire(import.meta.url);

/** The adapter's ES module as the browser bundles carry it (unminified, only the adapter). */
async function bundle(entry: string): Promise<string> {
  const out = await esbuild.build({ entryPoints: [entry], bundle: true, write: false, format: 'esm', platform: 'browser', external: ['pouchdb-*'], plugins: [patchedIndexeddbAdapter], logLevel: 'silent' });
  return out.outputFiles[0].text;
}

describe('the browser bundles\' pouchdb-adapter-indexeddb (scripts/patch-indexeddb-adapter.mjs)', () => {
  it('reads the stored sequence and count in each write transaction, and names the abort\'s own error', async () => {
    const file = join(require.resolve('pouchdb-adapter-indexeddb/package.json'), '..', 'lib', 'index.es.js');
    const code = await bundle(file);
    expect(code).toContain('txn.objectStore(META_LOCAL_STORE).get(META_LOCAL_STORE).onsuccess');
    expect(code).toContain('metadata.seq = stored.seq;');
    // asked together with the documents' reads, not before them (answered first: no round trip of its own)
    expect(code).toMatch(/metadata\.doc_count = stored\.doc_count;\s*\}\s*\};\s*fetchExistingDocs\(txn, docs\);/);
    expect(code).toMatch(/createError\(UNKNOWN_ERROR, txn\.error && txn\.error\.name \|\| ["']transaction was aborted["']\)/);
    expect(code).not.toMatch(/createError\(UNKNOWN_ERROR, ["']transaction was aborted["']\)/);
    // `_local` documents take the `_putLocal` path in every bulkDocs call (tested in Chromium: test/browser)
    expect(code).toMatch(/if \(isLocalId\(req\.docs\[i\]\._id\)\) \{\s*docs\.push\(docstackLocalDoc\(req\.docs\[i\]\)\);/);
    expect(code).toContain('newDoc = docstackLocalWrite(doc, oldDocs[doc.id]);');
    expect(code).toContain('function docstackLocalWrite(doc, old)');
  });

  it('fails the build when the text it patches is not there (a new adapter version is looked at again)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-patch-'));
    try {
      const lib = join(dir, 'node_modules', 'pouchdb-adapter-indexeddb', 'lib');
      await mkdir(lib, { recursive: true });
      await writeFile(join(lib, 'index.es.js'), 'export default function IndexeddbPouch() {}\n');
      await expect(bundle(join(lib, 'index.es.js'))).rejects.toThrow(/the text to patch was not found/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
