import type { AlaSQL } from './alasql-source.js';

/** Held in a variable: the bundler leaves the import alone (an import map or the app names it). */
const MODULE: string = 'alasql';

/**
 * The browser bundle's alasql when the app hands none in: the module named 'alasql', through the
 * page's import map (docs/sql.md). No dist/vendor here: that copy is Node's.
 */
export async function importAlasql(): Promise<AlaSQL> {
  const mod = (await import(MODULE)) as { default?: AlaSQL };
  return mod.default ?? (mod as unknown as AlaSQL);
}
