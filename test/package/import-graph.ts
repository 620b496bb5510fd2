import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * The source's import graph, type-only imports included (`import type` hides a layer from a
 * reader as much as a value import does): used by layers.test.ts.
 */

/** The layers, bottom first: a file imports only from its own layer or one below. */
export const LAYERS = ['contracts', 'storage', 'kernel', 'engine', 'kit', 'plugins', 'server'] as const;

/** The root entries and where they sit: `docstack` is the engine's face; presets and bundles sit above the plugins. */
const ROOT_FILES: Record<string, number> = { 'index.ts': 3, 'plugins.config.ts': 5.5, 'browser.ts': 6, 'browser-sql.ts': 6, 'browser-slim.ts': 6, 'react.ts': 6 };

/** The package's subpaths, as the sources (tsconfig paths) */
const PACKAGE_PATHS: Record<string, string> = {
  docstack: 'index.ts',
  'docstack/plugin-kit': 'kit/index.ts',
  'docstack/presets': 'plugins.config.ts',
  'docstack/react': 'react.ts',
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export type Graph = Map<string, string[]>;

/** Every `.ts` source (tests, benches and declaration files left out), relative to the root. */
export function sourceFiles(root: string): string[] {
  const files = Object.keys(ROOT_FILES).filter((f) => exists(join(root, f)));
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const layer of LAYERS) walk(layer);
  return files;
}

function exists(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The project files a source imports (relative specifiers and the package's own subpaths). */
export function importsOf(file: string, text: string, known: ReadonlySet<string>): string[] {
  const targets: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    let target: string | undefined = PACKAGE_PATHS[spec] ?? (/^docstack\/plugins\/([a-z-]+)$/.exec(spec) ? `plugins/${spec.split('/')[2]}/index.ts` : undefined);
    if (!target && spec.startsWith('.')) {
      const base = normalize(join(dirname(file), spec)).replace(/\.js$/, '');
      target = [`${base}.ts`, join(base, 'index.ts')].find((c) => known.has(c));
    }
    if (target) targets.push(target);
  }
  return targets;
}

export function importGraph(root: string): Graph {
  const files = sourceFiles(root);
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, readFileSync(join(root, f), 'utf8'), known)]));
}

/** Strongly connected sets of more than one file, and files importing themselves (Tarjan). */
export function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

export function layerOf(file: string): number {
  if (file in ROOT_FILES) return ROOT_FILES[file];
  return LAYERS.indexOf(file.split('/')[0] as (typeof LAYERS)[number]);
}

/** Imports that point up a layer. */
export function upwardImports(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) for (const t of targets) if (layerOf(t) > layerOf(file)) found.push(`${file} → ${t}`);
  return found;
}

/** A plugin imports its own folder, the two public entries (`docstack`, `docstack/plugin-kit`) and other plugins' entries only. */
export function pluginBoundaryBreaches(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith('plugins/')) continue;
    const own = file.split('/').slice(0, 2).join('/') + '/';
    for (const t of targets) {
      const ok = t.startsWith(own) || t === 'index.ts' || t === 'kit/index.ts' || /^plugins\/[a-z-]+\/index\.ts$/.test(t);
      if (!ok) found.push(`${file} → ${t}`);
    }
  }
  return found;
}

