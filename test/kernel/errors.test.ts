import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DocstackError, ERROR_CODES, isDocstackError } from '../../index.js';

describe('error codes', () => {
  it('are documented in docs/errors.md, and the page lists no code that does not exist', async () => {
    const page = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const documented = new Set(page.match(/`DS_[A-Z_]+`/g)?.map((c) => c.slice(1, -1)));
    const defined = new Set(Object.keys(ERROR_CODES));
    expect([...defined].filter((c) => !documented.has(c))).toEqual([]);
    expect([...documented].filter((c) => !defined.has(c))).toEqual([]);
  });

  it('are stable strings prefixed DS_ grouped by area', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^DS_[A-Z]+_[A-Z_]+$/);
  });

  it('carry code, message, path and details, and serialise to JSON', () => {
    const err = new DocstackError('DS_VALIDATION_MANDATORY', '"title" is mandatory.', { path: 'title', details: { a: 1 } });
    expect(err).toBeInstanceOf(Error);
    expect(isDocstackError(err, 'DS_VALIDATION_MANDATORY')).toBe(true);
    expect(isDocstackError(err, 'DS_VALIDATION_TYPE')).toBe(false);
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ code: 'DS_VALIDATION_MANDATORY', path: 'title', message: '"title" is mandatory.' });
  });
});
