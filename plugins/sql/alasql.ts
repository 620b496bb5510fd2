import type alasqlType from 'alasql';

export type AlaSQL = typeof alasqlType;

let loading: Promise<AlaSQL> | null = null;

/**
 * alasql loads on the first statement, not when the plugin is imported: a bundle that lists
 * the plugin but never runs SQL does not pay for the parser (alasql is ~500 kB minified).
 */
export function loadAlasql(): Promise<AlaSQL> {
  loading ??= import('alasql').then((mod) => ((mod as { default?: AlaSQL }).default ?? (mod as unknown as AlaSQL)));
  return loading;
}

/** An AST node of alasql (its classes carry no useful types for us). */
export type Node = Record<string, any>;
