import { filterInMemoryFields, massageSelector } from 'pouchdb-selector-core';
import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import type { Doc } from '../../contracts/model.js';

import type { PatternMatcher, RegexEngine, Selector } from '../../contracts/queries.js';

export type { PatternMatcher, RegexEngine, Selector };

export type DocMatcher = ((docs: Doc[]) => Doc[]) & {
  /** characters `$regex` patterns have scanned so far (a remote scan yields the event loop by them) */
  regexWork?: () => number;
};

/**
 * Characters a selector's `$regex` may scan in one call of its matcher (one document, in a
 * remote scan): RE2 takes up to ~2 µs a character here, so one call stays well under 50 ms.
 * Past it the query is refused (DS_QUERY_TOO_COSTLY) rather than left to hold the event loop.
 */
export const MAX_REGEX_WORK = 20_000;

/** Massages the selector once, so a class scan pays for it once and not per document. */
export function compileSelector(selector: Selector | undefined, regex?: RegexEngine): DocMatcher {
  if (selector === undefined || selector === null || Object.keys(selector).length === 0) return (docs) => docs;
  if (typeof selector !== 'object' || Array.isArray(selector)) {
    throw KERNEL_ERRORS.queryInvalid('A selector must be an object such as { status: "open" } or { age: { $gt: 18 } }.');
  }
  const patterns = regex ? compilePatterns(selector, regex) : null;
  let massaged: Selector;
  try {
    massaged = massageSelector(selector) as Selector;
  } catch (cause) {
    throw KERNEL_ERRORS.queryInvalid(`The selector is invalid: ${(cause as Error).message}`, { cause });
  }
  const fields = Object.keys(massaged);
  const filter = (docs: Doc[]) => filterInMemoryFields(docs.map((doc) => ({ doc })), { selector: massaged }, fields) as { doc: Doc }[];
  const meter = { total: 0, left: 0 };
  const matcher: DocMatcher = (docs) => {
    try {
      meter.left = MAX_REGEX_WORK;
      const rows = patterns && patterns.size > 0 ? withPatterns(patterns, meter, () => filter(docs)) : filter(docs);
      return rows.map((row) => row.doc);
    } catch (cause) {
      if (cause instanceof DocstackError) throw cause;
      throw KERNEL_ERRORS.queryInvalid(`The selector is invalid: ${(cause as Error).message}`, { cause });
    }
  };
  if (patterns && patterns.size > 0) matcher.regexWork = () => meter.total;
  return matcher;
}

/** Every `$regex` of the selector, at any depth, compiled by the engine (a refused one refuses the selector). */
function compilePatterns(selector: Selector, regex: RegexEngine): Map<string, PatternMatcher> {
  const out = new Map<string, PatternMatcher>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 64) throw KERNEL_ERRORS.queryInvalid('The selector is nested more than 64 levels deep.');
    if (Array.isArray(node)) return node.forEach((n) => visit(n, depth + 1));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$regex') {
        visit(value, depth + 1);
        continue;
      }
      if (typeof value !== 'string') throw KERNEL_ERRORS.queryInvalid('$regex takes a pattern as text.', { path: '$regex' });
      if (out.has(value)) continue;
      const compiled = regex(value);
      if (typeof compiled === 'string') throw KERNEL_ERRORS.queryInvalid(`The $regex ${JSON.stringify(value.slice(0, 80))} is refused: ${compiled}.`, { path: '$regex' });
      out.set(value, compiled);
    }
  };
  visit(selector, 0);
  return out;
}

/**
 * Runs PouchDB's matcher with its `$regex` on the given matchers. PouchDB builds each regex with
 * `new RegExp(pattern)` from the global scope and offers no other way in: for the length of this
 * synchronous call (nothing else can run meanwhile), the global `RegExp` is a constructor that
 * answers the pattern's compiled matcher, and it is put back before returning. Regex literals
 * and the engine's own uses of RegExp are unaffected (they use the intrinsic, not the global).
 */
function withPatterns<T>(patterns: Map<string, PatternMatcher>, meter: { total: number; left: number }, run: () => T): T {
  const original = globalThis.RegExp;
  const substitute = function (pattern: unknown): PatternMatcher {
    const found = typeof pattern === 'string' ? patterns.get(pattern) : undefined;
    if (!found) throw new Error('a $regex pattern was not compiled beforehand');
    return {
      test: (text: string) => {
        meter.total += text.length;
        meter.left -= text.length;
        if (meter.left < 0) {
          throw KERNEL_ERRORS.queryTooCostly(`A $regex would scan more than ${MAX_REGEX_WORK} characters of one document: match on shorter values, or narrow the selector.`, {
            details: { reason: 'regex', limit: MAX_REGEX_WORK },
          });
        }
        return found.test(text);
      },
    };
  };
  globalThis.RegExp = substitute as unknown as RegExpConstructor;
  try {
    return run();
  } finally {
    globalThis.RegExp = original;
  }
}

/** Keeps `_id` and the named fields (dotted paths are not split: attribute names only). */
export function projectFields(doc: Doc, fields: readonly string[] | undefined): Doc {
  if (!fields || fields.length === 0) return doc;
  const out: Record<string, unknown> = { _id: doc._id };
  for (const field of fields) if (Object.hasOwn(doc, field)) out[field] = doc[field];
  return out as Doc;
}
