/**
 * What the plugin needs of the alasql module. Our own shape, not alasql's types: the package
 * ships alasql inside dist/vendor (no alasql dependency, so none of its optional react-native
 * tree reaches an app), so a public .d.ts may not import 'alasql'. Every use casts to the part
 * it reads; `import alasql from 'alasql'` (or `docstack/alasql`) is assignable to it.
 */
export interface AlaSQL {
  parse(sql: string): unknown;
  yy: object;
}

let loading: Promise<AlaSQL> | null = null;

/**
 * The module's name in a variable: bundlers leave an import of a non-literal alone, so a browser
 * bundle that merely imports the presets never contains alasql (~500 kB minified). A browser app
 * that runs SQL hands the module in: `[sqlPlugin, { alasql }]`.
 */
const MODULE: string = 'alasql';
/** alasql's Node build as the package ships it (dist/vendor, copied by the build), beside dist/plugins/sql/ */
const VENDORED: string = '../../vendor/alasql.cjs';

const moduleOf = (mod: { default?: AlaSQL }): AlaSQL => mod.default ?? (mod as unknown as AlaSQL);
const notFound = (err: unknown) => (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';

/**
 * In Node the copy in dist/vendor; else (the repository's sources, a browser's import map) the
 * module named 'alasql'.
 */
async function importAlasql(): Promise<AlaSQL> {
  const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  if (inNode) {
    try {
      return moduleOf(await import(new URL(VENDORED, import.meta.url).href));
    } catch (err) {
      if (!notFound(err)) throw err;
    }
  }
  return moduleOf(await import(MODULE));
}

/** alasql, loaded on the first statement (not when the plugin is imported), or the one given. */
export function loadAlasql(given?: AlaSQL): Promise<AlaSQL> {
  if (given) return Promise.resolve(given);
  loading ??= importAlasql();
  return loading;
}

/** An AST node of alasql (its classes carry no useful types for us). */
export type Node = Record<string, any>;
