import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importGraph, importsOf, layerOf, pluginBoundaryBreaches, upwardImports, type Graph } from './import-graph.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the layers (docs/architecture.md): contracts → storage → kernel → engine → kit → plugins → server', () => {
  const graph = importGraph(ROOT);

  it('reads the whole source: every layer has files, type-only imports are edges', () => {
    for (const layer of ['contracts/', 'storage/', 'kernel/', 'engine/', 'kit/', 'plugins/', 'server/']) {
      expect([...graph.keys()].some((f) => f.startsWith(layer)), layer).toBe(true);
    }
    const known = new Set(['contracts/model.ts', 'kernel/stack.ts']);
    expect(importsOf('kernel/pipeline.ts', "import type { Doc } from '../contracts/model.js';", known)).toEqual(['contracts/model.ts']);
    expect(importsOf('plugins/acme/index.ts', "import { definePlugin } from 'docstack';\nimport { tapWhen } from 'docstack/plugin-kit';", known)).toEqual(['index.ts', 'kit/index.ts']);
  });

  it('has no import circle anywhere, type-only ones included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('imports only downward: no file names a layer above its own', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('plugins import only `docstack`, `docstack/plugin-kit`, their own folder and other plugins’ entries', () => {
    expect(pluginBoundaryBreaches(graph)).toEqual([]);
  });

  it('the checks see a circle, an upward import and a deep import (they can fail)', () => {
    const bad: Graph = new Map([
      ['kernel/a.ts', ['engine/b.ts']],
      ['engine/b.ts', ['kernel/a.ts']],
      ['plugins/acme/index.ts', ['engine/model/class.ts', 'index.ts', 'plugins/other/index.ts', 'plugins/other/internal.ts']],
    ]);
    expect(circles(bad)).toEqual([['engine/b.ts', 'kernel/a.ts']]);
    expect(upwardImports(bad)).toEqual(['kernel/a.ts → engine/b.ts']);
    expect(pluginBoundaryBreaches(bad)).toEqual(['plugins/acme/index.ts → engine/model/class.ts', 'plugins/acme/index.ts → plugins/other/internal.ts']);
    expect(layerOf('index.ts')).toBeLessThan(layerOf('kit/index.ts'));
  });
});
