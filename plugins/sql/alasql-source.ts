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

/**
 * The module's name in a variable: bundlers leave an import of a non-literal alone, so a bundle
 * that merely imports the presets never contains alasql (~500 kB minified).
 */
const MODULE: string = 'alasql';
/** alasql's Node build as the package ships it (dist/vendor, copied by the build), from dist/plugins/sql/ */
const VENDORED: string = '../../vendor/alasql.cjs';

const moduleOf = (mod: { default?: AlaSQL }): AlaSQL => mod.default ?? (mod as unknown as AlaSQL);

/**
 * Node: the package's copy in dist/vendor (alasql is no dependency of the package), else — the
 * repository's sources, which have no dist/vendor — the module named 'alasql' (a devDependency).
 * The browser bundle swaps in alasql-source.browser.ts (scripts/build-browser.mjs).
 */
export async function importAlasql(): Promise<AlaSQL> {
  try {
    return moduleOf(await import(new URL(VENDORED, import.meta.url).href));
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
  }
  return moduleOf(await import(MODULE));
}
