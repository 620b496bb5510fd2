/* What a read asks for: selectors and find options, as callers and plugins write them. */

/** A Mango selector (CouchDB's query language), matched in memory by PouchDB's own matcher. */
export type Selector = Record<string, unknown>;

/** A matcher of one compiled pattern: `test` as RegExp's. */
export interface PatternMatcher {
  test(text: string): boolean;
}

/**
 * Compiles a `$regex` pattern for a selector: a matcher, or the reason the pattern is refused.
 * Remote queries use a linear-time engine (engine/queries/linear-regex.ts: `compileLinear`); without one,
 * `$regex` runs on the JavaScript RegExp, as PouchDB does.
 */
export type RegexEngine = (pattern: string) => PatternMatcher | string;

export interface FindOptions {
  /** Attribute names to return (with `_id`); all when absent. */
  fields?: string[];
  skip?: number;
  limit?: number;
  includeInactive?: boolean;
  /** Only documents whose `_id` sorts after this one: a cursor, so a next page does not read the pages before it. */
  after?: string;
  /** How `$regex` patterns are compiled: a remote query's read passes a linear-time engine (engine/queries/linear-regex.ts). */
  regex?: RegexEngine;
  /** Checked between pages of the scan: once aborted, the read stops with DS_QUERY_TOO_COSTLY (a remote query's deadline). */
  signal?: AbortSignal;
  /**
   * Awaited between pages of the scan (a remote query's share of the event loop: the server's
   * pacer); without it a read with a `signal` still gives the loop one turn between pages.
   */
  pace?: () => Promise<void>;
}

export interface GetOptions {
  includeInactive?: boolean;
}
