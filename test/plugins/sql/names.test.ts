import { describe, expect, it } from 'vitest';
import { Class, DocstackError } from '../../../index.js';
import type { BrowserSqlStack } from '../../../plugins.config.js';
import type { WriteResult } from '../../../plugins/sql/index.js';
import { shop, sqlStack } from './fixture.js';

/** The 21 names alasql reserves (each failed unquoted before the rewrite)… */
const RESERVED = ['value', 'count', 'order', 'index', 'total', 'top', 'first', 'last', 'sum', 'source', 'target', 'group', 'path', 'query', 'columns', 'values', 'set', 'content', 'matrix', 'recordset', 'row'];
/** …and 25 everyday ones (`active` is the system column every table has: `enabled` stands for it). */
const EVERYDAY = ['name', 'label', 'status', 'date', 'amount', 'price', 'quantity', 'code', 'type', 'title', 'description', 'email', 'phone', 'city', 'country', 'createdAt', 'owner', 'note', 'tags', 'enabled', 'level', 'score', 'rank', 'key', 'user'];
const ALL = [...RESERVED, ...EVERYDAY];
const NUMBERS = new Set(['value', 'count', 'order', 'index', 'total', 'top', 'sum', 'row', 'amount', 'price', 'quantity', 'level', 'score', 'rank']);
const DATES = new Set(['date', 'createdAt']);

const typeOf = (name: string) => (NUMBERS.has(name) ? 'decimal' : DATES.has(name) ? 'date' : name === 'enabled' ? 'boolean' : 'string');
/** Row `n` (1, 2 or 3) holds, in each attribute, a value that sorts by n. */
function valueOf(name: string, n: number): unknown {
  if (NUMBERS.has(name)) return n;
  if (DATES.has(name)) return `2024-0${n}-01`;
  if (name === 'enabled') return n === 2;
  return `${name}-${n}`;
}

type Rows = Record<string, unknown>[];

async function setup() {
  const stack = await sqlStack();
  await Class.create(stack, 'Item', 'class', '', Object.fromEntries(ALL.map((name) => [name, { type: typeOf(name) }])));
  const q = (statement: string, params?: unknown[] | Record<string, unknown>) => stack.sql<Rows>(statement, params);
  // every column named unquoted, in an INSERT of two rows
  const placeholders = `(${ALL.map(() => '?').join(', ')})`;
  const added = await stack.sql<WriteResult>(`INSERT INTO Item (${ALL.join(', ')}) VALUES ${placeholders}, ${placeholders}`, [1, 2].flatMap((n) => ALL.map((a) => valueOf(a, n))));
  expect(added.count).toBe(2);
  return { stack, q };
}

async function refusal(promise: Promise<unknown>, code: string): Promise<DocstackError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(DocstackError);
  expect((err as DocstackError).code).toBe(code);
  return err as DocstackError;
}

describe('sql: attribute names are names, whatever alasql reserves', () => {
  it('all 46 names unquoted: INSERT, SELECT, WHERE, ORDER BY, GROUP BY, aggregates, qualified and aliased', async () => {
    const { q } = await setup();
    const [row] = await q(`SELECT ${ALL.join(', ')} FROM Item WHERE code = ?`, ['code-2']);
    expect(row).toEqual(Object.fromEntries(ALL.map((a) => [a, valueOf(a, 2)])));
    for (const a of ALL) {
      const [one, two] = [valueOf(a, 1), valueOf(a, 2)];
      expect(await q(`SELECT ${a} FROM Item WHERE ${a} = ?`, [two]), a).toEqual([{ [a]: two }]);
      expect(await q(`SELECT ${a} FROM Item ORDER BY ${a} DESC`), a).toEqual([{ [a]: two }, { [a]: one }]);
      expect(await q(`SELECT ${a}, COUNT(${a}) AS n FROM Item GROUP BY ${a} ORDER BY ${a}`), a).toEqual([{ [a]: one, n: 1 }, { [a]: two, n: 1 }]);
      expect(await q(`SELECT t.${a} FROM Item t WHERE t.${a} IN (?) AND t.${a} IS NOT NULL`, [[one]]), a).toEqual([{ [a]: one }]);
      expect(await q(`SELECT i.${a} AS ${a}, i.code AS value FROM Item AS i WHERE i.${a} <> ?`, [one]), a).toEqual([{ [a]: two, value: 'code-2' }]);
    }
  });

  it('UPDATE SET of each name, computed from the row', async () => {
    const { stack, q } = await setup();
    const [{ _id: second }] = await q("SELECT _id FROM Item WHERE code = 'code-2'");
    for (const a of ALL) {
      const [two, three] = [valueOf(a, 2), valueOf(a, 3)];
      expect((await stack.sql<WriteResult>(`UPDATE Item SET ${a} = ? WHERE ${a} = ?`, [three, two])).ids, a).toEqual([second]);
      expect(await q(`SELECT ${a} FROM Item WHERE _id = ?`, [second]), a).toEqual([{ [a]: three }]);
    }
    // several reserved names at once, each computed from the row
    await stack.sql("UPDATE Item SET value = value + 10, count = count * 2, set = set || '!', values = UPPER(values), group = 'g' WHERE top = 1");
    expect(await q("SELECT value, count, set, values, group FROM Item WHERE code = 'code-1'")).toEqual([{ value: 11, count: 2, set: 'set-1!', values: 'VALUES-1', group: 'g' }]);
  });

  it('aggregates over reserved names: SUM(total), COUNT(count), MIN, MAX, AVG, GROUP BY group', async () => {
    const { q } = await setup();
    expect(await q('SELECT SUM(total) AS total, COUNT(count) AS count, MAX(sum) AS sum, MIN(value) AS value, AVG(row) AS row FROM Item')).toEqual([{ total: 3, count: 2, sum: 2, value: 1, row: 1.5 }]);
    expect(await q('SELECT group, SUM(total) AS total FROM Item GROUP BY group HAVING SUM(total) > 1 ORDER BY group')).toEqual([{ group: 'group-2', total: 2 }]);
    expect(await q('SELECT order FROM Item ORDER BY order DESC LIMIT 1')).toEqual([{ order: 2 }]);
    expect(await q('SELECT first, last FROM Item WHERE source = ? AND target LIKE ? AND path <> content', ['source-1', 'target%'])).toEqual([{ first: 'first-1', last: 'last-1' }]);
  });

  it('a JOIN on reserved-name columns, qualified and not', async () => {
    const { stack, q } = await setup();
    await Class.create(stack, 'Link', 'class', '', { source: { type: 'string' }, target: { type: 'string' }, weight: { type: 'integer' } });
    await stack.sql('INSERT INTO Link (source, target, weight) VALUES (?, ?, 5), (?, ?, 7)', ['x', 'target-1', 'y', 'target-2']);
    expect(await q('SELECT l.source, i.value, i.index FROM Link l JOIN Item i ON i.target = l.target ORDER BY i.value')).toEqual([
      { source: 'x', value: 1, index: 1 },
      { source: 'y', value: 2, index: 2 },
    ]);
    expect(await q('SELECT weight, total FROM Item JOIN Link ON Link.target = Item.target WHERE Link.source = ?', ['y'])).toEqual([{ weight: 7, total: 2 }]);
  });

  it('keywords keep their meaning beside attributes of the same name: COUNT(*), ORDER BY, GROUP BY, VALUES, SET, TOP, SELECT VALUE', async () => {
    const { stack, q } = await setup();
    expect(await q('SELECT COUNT(*) AS count FROM Item')).toEqual([{ count: 2 }]);
    expect(await q('SELECT count, COUNT(*) AS n FROM Item GROUP BY count ORDER BY count')).toEqual([{ count: 1, n: 1 }, { count: 2, n: 1 }]);
    expect(await q('SELECT SUM(sum) AS sum FROM Item WHERE sum IN (SELECT MAX(sum) FROM Item)')).toEqual([{ sum: 2 }]);
    const added = await stack.sql<WriteResult>('INSERT INTO Item (values, value, set, code) VALUES (?, 3, ?, ?)', ['v', 's', 'code-3']);
    expect(await q('SELECT values, value, set FROM Item WHERE _id = ?', [added.ids[0]])).toEqual([{ values: 'v', value: 3, set: 's' }]);
    // TOP and the SELECT modifiers stay refused (LIMIT, plain rows): as keywords, not as columns
    const top = await refusal(q('SELECT TOP 1 top FROM Item'), 'DS_SQL_REFUSED');
    expect(top.details).toEqual({ construct: 'TOP (use LIMIT)' });
    expect((await refusal(q('SELECT VALUE name FROM Item'), 'DS_SQL_REFUSED')).details?.construct).toMatch(/SELECT VALUE/);
    expect(await q('SELECT top, value FROM Item WHERE top = 1')).toEqual([{ top: 1, value: 1 }]);
    // a type in CAST stays a type beside a `date` attribute (alasql's DATE of the number 1, not the column);
    // CASE over a reserved name; NULLS FIRST stays refused
    expect(await q("SELECT CAST(value AS date) AS date, CASE value WHEN 1 THEN 'one' ELSE 'more' END AS label FROM Item WHERE date = '2024-01-01'")).toEqual([{ date: '70.01.01', label: 'one' }]);
    await refusal(q('SELECT name FROM Item ORDER BY first ASC NULLS FIRST'), 'DS_SQL_REFUSED');
  });

  it('keywords keep their meaning where no class has such an attribute; a reserved word that names nothing stays reserved', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const q = (statement: string) => stack.sql<Rows>(statement);
    expect(await q('SELECT COUNT(*) AS count, SUM(age) AS total FROM Customer')).toEqual([{ count: 4, total: 125 }]);
    expect(await q("SELECT city, COUNT(*) AS n FROM Customer GROUP BY city ORDER BY n DESC, city LIMIT 1")).toEqual([{ city: 'Paris', n: 2 }]);
    expect((await stack.sql<WriteResult>("INSERT INTO Customer (code, name) VALUES ('E', 'Eve')")).count).toBe(1);
    expect((await stack.sql<WriteResult>("UPDATE Customer SET age = 50 WHERE code = 'E'")).count).toBe(1);
    expect((await refusal(q('SELECT TOP 1 name FROM Customer'), 'DS_SQL_REFUSED')).details).toEqual({ construct: 'TOP (use LIMIT)' });
    // `total` is no column of Customer: alasql's keyword, a syntax error that says how to quote
    expect((await refusal(q('SELECT total FROM Customer'), 'DS_SQL_SYNTAX')).message).toMatch(/Quote reserved words/);
    expect((await refusal(q('SELECT name FROM Customer WHERE value = 1'), 'DS_SQL_REFUSED')).details?.construct).toMatch(/VALUE/);
    // a class named by a reserved word is a table name where a table stands
    expect(await q('SELECT COUNT(*) AS n FROM Order WHERE status = \'paid\'')).toEqual([{ n: 3 }]);
    expect(await q('SELECT Order.amount FROM Order ORDER BY Order.amount DESC LIMIT 1')).toEqual([{ amount: 50 }]);
    // an alias is a name, after AS and as a qualifier
    expect(await q("SELECT total.name AS order FROM Customer AS total WHERE total.code = 'A'")).toEqual([{ order: 'Ann' }]);
  });

  it('strings, comments and quoted names are left as written; errors point into the caller\'s text', async () => {
    const { q } = await setup();
    expect(await q("SELECT 'count' AS label, code FROM Item -- value, order\nWHERE name = 'name-1' /* total */")).toEqual([{ label: 'count', code: 'code-1' }]);
    expect(await q('SELECT "value", `count` FROM Item WHERE "order" = 2')).toEqual([{ value: 2, count: 2 }]);
    expect(await q('SELECT name FROM Item WHERE title = ?', ['order by value'])).toEqual([]);
    // the rewritten statement is longer than the caller's: positions are the caller's
    const plain = await refusal(q('SELECT "value", "total"\nFROM Item WHERE "value" = = 1'), 'DS_SQL_SYNTAX');
    const rewritten = await refusal(q('SELECT value, total\nFROM Item WHERE value = = 1'), 'DS_SQL_SYNTAX');
    const p = plain.details as { line: number; column: number; position: number; near: string };
    expect(rewritten.details).toMatchObject({ line: 2, column: p.column - 2, position: p.position - 6 });
    expect((rewritten.details as { near: string }).near).toContain('= = 1');
  });
});
