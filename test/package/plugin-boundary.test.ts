import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Plugin } from '../../index.js';
import { browser, server } from '../../plugins.config.js';
import { cloudQueuePlugin } from '../../plugins/cloud-queue/index.js';
import { driveSyncPlugin } from '../../plugins/drive-sync/index.js';

/**
 * The plugin boundary, checked the hard way: for each plugin folder, a temp copy of the engine
 * (contracts, storage, kernel, engine, kit, plugins) without that folder — and without the plugins that declare it in
 * `requires` or `optional` — must still type-check. So the kernel knows no plugin, and a plugin
 * reaches another only through a declared dependency.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

const plugins = new Map<string, Plugin>();
/** opt-in plugins: in no preset, each imported from its own entry point (docstack/drive-sync…) */
const optIn = [driveSyncPlugin, cloudQueuePlugin];
for (const entry of [...browser, ...server, ...optIn]) {
  const plugin = (Array.isArray(entry) ? entry[0] : entry) as Plugin;
  plugins.set(plugin.name, plugin);
}

/** Plugins that depend on `name`, directly or through another dependent. */
function dependentsOf(name: string): Set<string> {
  const found = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const plugin of plugins.values()) {
      if (found.has(plugin.name)) continue;
      const uses = [...(plugin.requires ?? []), ...(plugin.optional ?? [])];
      if (uses.includes(name) || uses.some((u) => found.has(u))) {
        found.add(plugin.name);
        grew = true;
      }
    }
  }
  return found;
}

describe('the plugin boundary', () => {
  it('every plugin folder is a preset (or opt-in) plugin of the same name', async () => {
    const folders = (await readdir(join(root, 'plugins'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.sort()).toEqual([...plugins.keys()].sort());
  });

  it('deleting any plugin folder leaves the kernel and the undeclared plugins type-checking', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-boundary-'));
    try {
      const results: string[] = [];
      for (const name of plugins.keys()) {
        const copy = join(dir, name);
        // the engine's layers and its public entry (plugins import `docstack` = index.ts and the kit)
        for (const folder of ['contracts', 'storage', 'kernel', 'engine', 'kit', 'types', 'index.ts']) await cp(join(root, folder), join(copy, folder), { recursive: true });
        const removed = new Set([name, ...dependentsOf(name)]);
        for (const other of plugins.keys()) {
          if (!removed.has(other)) await cp(join(root, 'plugins', other), join(copy, 'plugins', other), { recursive: true });
        }
        await symlink(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
        const tsconfig = { extends: join(root, 'tsconfig.json'), compilerOptions: { noEmit: true, rootDir: '.', paths: {} }, include: ['contracts', 'storage', 'kernel', 'engine', 'kit', 'types', 'index.ts', 'plugins'] };
        await writeFile(join(copy, 'tsconfig.json'), JSON.stringify(tsconfig));
        await writeFile(join(copy, 'package.json'), JSON.stringify({ type: 'module' }));
        try {
          await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(copy, 'tsconfig.json')], { cwd: copy });
          results.push(`${name}: ok (also removed: ${[...removed].filter((n) => n !== name).join(', ') || 'none'})`);
        } catch (err) {
          results.push(`${name}: FAILS\n${String((err as { stdout?: string }).stdout ?? err)}`);
        }
      }
      expect(results.filter((r) => r.includes('FAILS'))).toEqual([]);
      expect(results).toHaveLength(plugins.size);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 480_000); // one full type-check per plugin folder: ~3 min on an idle 2-core machine, more beside other test files
});
