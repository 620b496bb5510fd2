import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** The package's entry points (package.json exports `.`, `./plugin-kit` and `./presets`), as source files. */
const ENTRY_POINTS = new Set(['index.ts', 'kit/index.ts', 'plugins.config.ts']);

async function sources(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** Every relative module a file imports or re-exports, resolved from the repository root. */
function relativeImports(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:import|export)[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((m) => m[1] ?? m[2]);
  return specifiers.map((s) => relative(ROOT, resolve(dirname(file), s)).replace(/\.js$/, '.ts'));
}

describe('the server node uses the engine as a user of the package would', () => {
  it('imports kernel and plugins only through the package entry points (docstack, docstack/presets)', async () => {
    const offenders: string[] = [];
    for (const file of await sources(join(ROOT, 'server'))) {
      for (const target of relativeImports(file, await readFile(file, 'utf8'))) {
        if (target.startsWith('server/') || ENTRY_POINTS.has(target)) continue;
        offenders.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the check sees an offending import (it can fail)', () => {
    const file = join(ROOT, 'server/replication/example.ts');
    expect(relativeImports(file, "import { claimFor } from '../../engine/indexes/primary-keys.js';")).toEqual(['engine/indexes/primary-keys.ts']);
    expect(relativeImports(file, "import { createStack } from '../../index.js';")).toEqual(['index.ts']);
  });
});

/** The store's own modules: the PouchDB store (`Database`, openDatabase) and the test-only accessor. */
const STORAGE_INTERNALS = new Set(['storage/database.ts', 'storage/raw-database.ts']);

/** Where a file reaches the raw store: `stack.db` / `KEYS.db`, `{ db } = stack`, or an import of the store's modules. */
function storageBypasses(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\b(?:stack|KEYS)\.db\b|\{[^{}]*\bdb\b[^{}]*\}\s*=\s*[\w.]*\bstack\b/g)) found.push(`${relative(ROOT, file)}: ${match[0]}`);
  for (const target of relativeImports(file, text)) if (STORAGE_INTERNALS.has(target)) found.push(`${relative(ROOT, file)} → ${target}`);
  return found;
}

describe('plugins and the server reach storage only through the facade (stack.storage)', () => {
  it('no file under plugins/ or server/ mentions stack.db or imports the store\'s own modules', async () => {
    const offenders: string[] = [];
    for (const dir of ['plugins', 'server']) {
      for (const file of await sources(join(ROOT, dir))) offenders.push(...storageBypasses(file, await readFile(file, 'utf8')));
    }
    expect(offenders).toEqual([]);
  });

  it('the check sees a raw-store access (it can fail)', () => {
    const file = join(ROOT, 'plugins/acme/index.ts');
    expect(storageBypasses(file, 'const rows = await stack.db.allDocs({});')).toEqual(['plugins/acme/index.ts: stack.db']);
    expect(storageBypasses(file, 'const db = container.resolve(KEYS.db);')).toHaveLength(1);
    expect(storageBypasses(file, 'const { db, clock } = this.stack;')).toHaveLength(1);
    expect(storageBypasses(file, "import type { Database } from '../../storage/database.js';")).toEqual(['plugins/acme/index.ts → storage/database.ts']);
    expect(storageBypasses(file, "import { rawDatabase } from '../../storage/raw-database.js';")).toEqual(['plugins/acme/index.ts → storage/raw-database.ts']);
    // the facade itself, and URLs that merely contain /db/, are fine
    expect(storageBypasses(file, "import type { Storage } from '../../storage/facade.js';\nconst url = 'http://host/db/docstack';\nawait stack.storage.get(id);")).toEqual([]);
  });
});
