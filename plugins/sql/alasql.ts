import { importAlasql, type AlaSQL } from './alasql-source.js';

export type { AlaSQL };

let loading: Promise<AlaSQL> | null = null;

/** alasql, loaded on the first statement (not when the plugin is imported), or the one given. */
export function loadAlasql(given?: AlaSQL): Promise<AlaSQL> {
  if (given) return Promise.resolve(given);
  loading ??= importAlasql();
  return loading;
}

/** An AST node of alasql (its classes carry no useful types for us). */
export type Node = Record<string, any>;
