import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** The package's entry points (package.json exports `.` and `./presets`), as source files. */
const ENTRY_POINTS = new Set(['index.ts', 'plugins.config.ts']);

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
    expect(relativeImports(file, "import { claimFor } from '../../kernel/indexes/primary-keys.js';")).toEqual(['kernel/indexes/primary-keys.ts']);
    expect(relativeImports(file, "import { createStack } from '../../index.js';")).toEqual(['index.ts']);
  });
});
