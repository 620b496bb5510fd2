import { mkdtemp, readdir, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plugin } from '../../index.js';
import { browser, server } from '../../plugins.config.js';
import { cloudQueuePlugin } from '../../plugins/cloud-queue/index.js';
import { driveSyncPlugin } from '../../plugins/drive-sync/index.js';
import { breachesWithout, deepImports, needsGraph, type NeedsGraph } from './boundary-graph.js';

/**
 * The plugin boundary: deleting any plugin folder — with the plugins that declare it in
 * `requires` or `optional` — leaves the engine (contracts, storage, kernel, engine, kit, types,
 * index.ts) and the other plugins type-checking. So the kernel knows no plugin, and a plugin
 * reaches another only through a declared dependency; a plugin imports only `docstack`,
 * `docstack/plugin-kit`, its own folder and other plugins' entries.
 *
 * Proved from one program, type-checked once: TypeScript's own resolution of every import and
 * every name (augmentations and ambient modules included, boundary-graph.ts) shows that no file
 * left needs a declaration found only in the deleted folders — so the smaller program checks as
 * the whole one does. (It used to type-check a copy per plugin folder: 14 × ~10 s of CPU.)
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const ENGINE_AND_PLUGINS = ['contracts/', 'storage/', 'kernel/', 'engine/', 'kit/', 'types/', 'plugins/', 'index.ts'];

const plugins = new Map<string, Plugin>();
/** opt-in plugins: in no preset, each imported from its own entry point (docstack/drive-sync…) */
const optIn = [driveSyncPlugin, cloudQueuePlugin];
for (const entry of [...browser, ...server, ...optIn]) {
  const plugin = (Array.isArray(entry) ? entry[0] : entry) as Plugin;
  plugins.set(plugin.name, plugin);
}

/** Plugins that depend on `name`, directly or through another dependent. */
function dependentsOf(name: string, among: Iterable<Pick<Plugin, 'name' | 'requires' | 'optional'>> = plugins.values()): Set<string> {
  const found = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const plugin of among) {
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

/** A compiler host that parses each library file once for every program of this file. */
function sharedHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, fresh) => {
    if (!fileName.includes('/node_modules/')) return getSourceFile(fileName, language, onError, fresh);
    if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, language, onError, fresh));
    return parsed.get(fileName);
  };
  return host;
}

const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } })!;
const host = sharedHost(config.options);
const report = (diagnostics: readonly ts.Diagnostic[]) => ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' });

describe('the plugin boundary', () => {
  let graph: NeedsGraph;
  beforeAll(() => {
    const files = config.fileNames.filter((f) => ENGINE_AND_PLUGINS.some((p) => f.startsWith(join(root, p))));
    const program = ts.createProgram({ rootNames: files, options: config.options, host });
    // the whole engine with every plugin type-checks: the base each deletion is compared with
    expect(report(ts.getPreEmitDiagnostics(program))).toBe('');
    graph = needsGraph(program, root);
  }, 60_000); // one type-check of ~220 files: ~10 s on a busy 2-core machine

  it('every plugin folder is a preset (or opt-in) plugin of the same name', async () => {
    const folders = (await readdir(join(root, 'plugins'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.sort()).toEqual([...plugins.keys()].sort());
  });

  it('deleting any plugin folder leaves the kernel and the undeclared plugins type-checking', () => {
    const results = [...plugins.keys()].map((name) => {
      const removed = new Set([name, ...dependentsOf(name)]);
      const breaches = breachesWithout(graph, removed);
      return breaches.length ? `${name}: FAILS\n${breaches.join('\n')}` : `${name}: ok (also removed: ${[...removed].filter((n) => n !== name).join(', ') || 'none'})`;
    });
    expect(results.filter((r) => r.includes('FAILS'))).toEqual([]);
    expect(results).toHaveLength(plugins.size);
  });

  it('plugins import only `docstack`, `docstack/plugin-kit`, their own folder and other plugins’ entries', () => {
    expect(deepImports(graph)).toEqual([]);
  });

  it('sees what the plugins really need of each other (the check can fail on this source)', () => {
    // retention requires jobs: deleting jobs alone, retention kept, leaves retention without what it uses
    expect(breachesWithout(graph, new Set(['jobs'])).some((b) => b.startsWith('plugins/retention/') && b.includes('plugins/jobs/'))).toBe(true);
    expect(graph.size).toBeGreaterThan(150);
  });

  it('fails on a kernel that uses a plugin’s augmentation, an undeclared plugin import and a deep import — as tsc does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-boundary-'));
    try {
      const sources: Record<string, string> = {
        'contracts/hooks.ts': 'export interface WriteSession { user?: string }\n',
        'kernel/internal.ts': 'export const internal = 1;\n',
        // the kernel reads a member only the stamp plugin adds
        'kernel/uses-plugin.ts': "import type { WriteSession } from '../contracts/hooks.js';\nexport const who = (s: WriteSession) => s.stamp;\n",
        'index.ts': "export type { WriteSession } from './contracts/hooks.js';\n",
        'kit/index.ts': 'export const kit = 1;\n',
        'plugins/stamp/index.ts': "declare module '../../contracts/hooks.js' {\n  interface WriteSession { stamp?: string }\n}\nexport const stampPlugin = { name: 'stamp' };\n",
        // an engine internal, and a plugin it does not declare
        'plugins/deep/index.ts': "import { internal } from '../../kernel/internal.js';\nimport { stampPlugin } from '../stamp/index.js';\nexport const deep = internal + stampPlugin.name.length;\n",
        // only the public entry: WriteSession is declared in contracts whether stamp is there or not
        'plugins/fine/index.ts': "import type { WriteSession } from '../../index.js';\nexport const fine = (s: WriteSession) => s.user;\n",
      };
      for (const [file, text] of Object.entries(sources)) {
        await mkdir(dirname(join(dir, file)), { recursive: true });
        await writeFile(join(dir, file), text);
      }
      await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      const options = { ...config.options, rootDir: dir, paths: {}, types: [] };
      const program = (files: string[]) => ts.createProgram({ rootNames: files.map((f) => join(dir, f)), options, host });
      const all = Object.keys(sources);
      expect(report(ts.getPreEmitDiagnostics(program(all)))).toBe('');

      const fixture = needsGraph(program(all), dir);
      expect(deepImports(fixture)).toEqual(['plugins/deep/index.ts imports kernel/internal.ts']);
      expect(breachesWithout(fixture, new Set(['stamp']))).toEqual([
        'kernel/uses-plugin.ts uses plugins/stamp/index.ts',
        'plugins/deep/index.ts imports plugins/stamp/index.ts',
        'plugins/deep/index.ts uses plugins/stamp/index.ts',
      ]);
      expect(breachesWithout(fixture, new Set(['fine', 'deep']))).toEqual([]);
      // declared: deep requires stamp, so both go — the kernel's use of the augmentation is left
      expect(dependentsOf('stamp', [{ name: 'deep', requires: ['stamp'] }, { name: 'fine' }])).toEqual(new Set(['deep']));
      expect(breachesWithout(fixture, new Set(['stamp', 'deep']))).toEqual(['kernel/uses-plugin.ts uses plugins/stamp/index.ts']);
      // and tsc agrees: without the two folders the kernel no longer type-checks
      const without = program(all.filter((f) => !f.startsWith('plugins/stamp/') && !f.startsWith('plugins/deep/')));
      expect(report(ts.getPreEmitDiagnostics(without))).toMatch(/uses-plugin\.ts.*Property 'stamp' does not exist/s);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
