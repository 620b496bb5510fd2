/**
 * The sql plugin's LIKE (plugins/sql/like.ts) against alasql's own (utils.like, a backtracking
 * RegExp): same answers for %, _, sets, ESCAPE, case and NULL, in linear time; the budget meter;
 * and the statement-shape limits that keep alasql's parser from overflowing (plugins/sql/limits.ts).
 */
import { describe, expect, it } from 'vitest';
import { like, likeRegexSource, metered } from '../../../plugins/sql/like.js';
import { MAX_NESTING, MAX_NOT_RUN, MAX_TOKENS } from '../../../plugins/sql/limits.js';
import { shop, sqlStack } from './fixture.js';

/** alasql's LIKE as it was, rebuilt from its own translation on V8's RegExp (its cache ignores ESCAPE: not rebuilt). */
const theirs = (pattern: string, value: unknown, escape = '') => `${value ?? ''}`.search(new RegExp(likeRegexSource(pattern, escape), 'i')) > -1;

describe('LIKE in linear time, with alasql semantics', () => {
  const cases: [string, unknown, string?][] = [
    ['a%', 'Ann'], ['a%', 'bAnn'], ['%n', 'Ann'], ['%N%', 'ann'], ['_e%', 'Dee'], ['_e%', 'De'], ['___', 'abc'], ['___', 'ab'], ['__', 'a\nb'.slice(0, 2)],
    ['a_c', 'a\nc'], ['%', ''], ['%', null], ['', ''], ['', 'x'], ['a%b%c', 'aXbYc'], ['a%b%c', 'acb'], ['%a%a%b', 'aab'], ['%a%a%b', 'ab'],
    ['%ab%ab%', 'xxabab'], ['%ab%ab%', 'xxab'], ['a%%b', 'ab'], ['%_%', ''], ['%_%', 'é'], ['É%', 'été'], ['ÉTÉ', 'été'], ['s', 'ſ'], ['K', 'k'],
    ['1.5', '1.5'], ['1.5', '125'], ['(a)', '(A)'], ['a+', 'aa'], ['a*', 'a*'], ['x|y', 'x|y'], ['{1}', '{1}'], ['a/b', 'a/b'], ['5', 5], ['tru%', true],
    ['[ab]%', 'bob'], ['[ab]%', 'cob'], ['[^ab]%', 'cob'], ['%[0-9]', 'x7'], ['a$', 'a'], ['^a', 'a'],
    ['10!%', '10%', '!'], ['10!%', '100', '!'], ['a!_b', 'a_b', '!'], ['a!_b', 'axb', '!'],
  ];
  it('answers as alasql does: % and _ (not a line break), case folded as RegExp i, sets, ^ $, ESCAPE, regex characters literal, NULL as empty', () => {
    const answers = cases.map(([pattern, value, escape = '']) => [pattern, value, escape, like(pattern, value, escape)]);
    expect(answers).toEqual(cases.map(([pattern, value, escape = '']) => [pattern, value, escape, theirs(pattern, value, escape)]));
    // and they are not all the same answer
    expect(new Set(answers.map((a) => a[3])).size).toBe(2);
  });

  it('the ReDoS attack answers (no match) and a NULL pattern matches nothing', () => {
    expect(like('%a%a%b', 'a'.repeat(4000))).toBe(false);
    expect(like('%a%a%a', 'a'.repeat(4000))).toBe(true);
    expect(like('[a]%a%b', 'a'.repeat(4000))).toBe(false);
    expect(like(null, 'x')).toBe(false);
  });

  it('refuses a pattern that does not compile or is too long (DS_SQL_PATTERN), and stops at the budget (DS_SQL_BUDGET)', () => {
    expect(() => like('[a', 'a')).toThrow(expect.objectContaining({ code: 'DS_SQL_PATTERN' }));
    expect(() => like(`${'a'.repeat(1001)}`, 'a')).toThrow(expect.objectContaining({ code: 'DS_SQL_PATTERN' }));
    expect(() => metered(1000, () => like('%b', 'a'.repeat(2000)))).toThrow(expect.objectContaining({ code: 'DS_SQL_BUDGET' }));
    expect(metered(3000, () => like('%b', 'a'.repeat(2000)))).toBe(false);
  });

  it('replaces alasql.utils.like for statements (and through SQL: % _ case, ESCAPE, sets)', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const q = (s: string) => stack.sql(s);
    expect(await q("SELECT name FROM Customer WHERE name LIKE '[AB]%' ORDER BY name")).toEqual([{ name: 'Ann' }, { name: 'Bob' }]);
    expect(await q("SELECT name FROM Customer WHERE name LIKE 'd_E'")).toEqual([{ name: 'Dee' }]);
    expect(await q("SELECT name FROM Customer WHERE city LIKE 'P!%ris' ESCAPE '!'")).toEqual([]);
    // REPLACE answers as alasql's (split and join) but never builds a text past MAX_REPLACED
    expect(await q("SELECT REPLACE(name, 'n', 'N') AS r FROM Customer WHERE code = 'A'")).toEqual([{ r: 'ANN' }]);
    expect(await q("SELECT REPLACE(name, '', '-') AS r FROM Customer WHERE code = 'B'")).toEqual([{ r: 'B-o-b' }]);
    const squared = (x: string) => `REPLACE(${x}, '', ${x})`; // squares the length: 5 → 25 → 625 → 390,625 → …
    await expect(q(`SELECT ${squared(squared(squared(squared('city'))))} AS r FROM Customer`)).rejects.toMatchObject({ code: 'DS_SQL_BUDGET' });
    // alasql's own LIKE threw a SyntaxError on this one (a 500 over HTTP)
    await expect(q("SELECT name FROM Customer WHERE name LIKE '[a'")).rejects.toMatchObject({ code: 'DS_SQL_PATTERN' });
  });
});

describe('statement shape limits (before alasql parses)', () => {
  it('refuses deep nesting, NOT chains and too many tokens with DS_SQL_TOO_COMPLEX, and runs what stays within them', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const refused = { code: 'DS_SQL_TOO_COMPLEX' };
    await expect(stack.sql(`SELECT name FROM Customer WHERE ${'('.repeat(10_000)}age > 1${')'.repeat(10_000)}`)).rejects.toMatchObject(refused);
    await expect(stack.sql(`SELECT name FROM Customer WHERE ${'('.repeat(5000)}age > 1${')'.repeat(5000)}`)).rejects.toMatchObject(refused);
    await expect(stack.sql(`SELECT name FROM Customer WHERE ${'NOT '.repeat(20_000)}age > 1`)).rejects.toMatchObject(refused);
    await expect(stack.sql(`SELECT name FROM Customer WHERE ${'age > 1 AND '.repeat(MAX_TOKENS / 4)}age > 1`)).rejects.toMatchObject(refused);
    // what the limits admit still runs (and does not overflow anything after the parser)
    const within = await stack.sql(`SELECT name FROM Customer WHERE ${'('.repeat(MAX_NESTING - 1)}age > 25${')'.repeat(MAX_NESTING - 1)} AND ${'NOT '.repeat(MAX_NOT_RUN - 1)}NOT (age > 36) ORDER BY name`);
    expect(within).toEqual([{ name: 'Cy' }]); // an even run of NOTs: age > 36
    const long = await stack.sql(`SELECT name FROM Customer WHERE ${'age > 1 AND '.repeat(Math.floor(MAX_TOKENS / 4) - 10)}age > 35`);
    expect(long).toEqual([{ name: 'Cy' }]);
    // quoted text and comments do not count as nesting
    expect(await stack.sql(`SELECT name FROM Customer WHERE name = '${'('.repeat(100)}' -- ${'('.repeat(100)}`)).toEqual([]);
  });
});
