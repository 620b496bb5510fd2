import type alasqlType from 'alasql';

export type AlaSQL = typeof alasqlType;

let loading: Promise<AlaSQL> | null = null;

/**
 * The module's name in a variable: bundlers leave an import of a non-literal alone, so a browser
 * bundle that merely imports the presets never contains alasql (~500 kB minified). A browser app
 * that runs SQL hands the module in: `[sqlPlugin, { alasql }]`.
 */
const MODULE: string = 'alasql';

/** alasql, loaded on the first statement (not when the plugin is imported), or the one given. */
export function loadAlasql(given?: AlaSQL): Promise<AlaSQL> {
  if (given) return Promise.resolve(given);
  loading ??= import(MODULE).then((mod: { default?: AlaSQL }) => mod.default ?? (mod as unknown as AlaSQL));
  return loading;
}

/** An AST node of alasql (its classes carry no useful types for us). */
export type Node = Record<string, any>;
