import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the slim build (no declarations)
import changesFilter from '../../scripts/changes-filter.slim.mjs';

// The stand-ins scripts/build-browser.mjs swaps into the browser files: what a page meets there.
describe('browser stand-ins', () => {
  it('pouchdb-changes-filter (slim): a plugin that adds nothing, so PouchDB runs without filters', () => {
    const PouchDB: Record<string, unknown> = {};
    expect(changesFilter(PouchDB)).toBeUndefined();
    expect(PouchDB).toEqual({});
  });
});
