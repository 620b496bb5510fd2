import { describe, expect, it } from 'vitest';
import { shop, sqlStack } from './fixture.js';

async function setup() {
  const stack = await sqlStack();
  const ids = await shop(stack);
  const q = (statement: string, params?: unknown[] | Record<string, unknown>) => stack.sql<Record<string, unknown>[]>(statement, params);
  return { stack, ids, q };
}

describe('sql: the language over classes', () => {
  it('WHERE with AND, OR, NOT and parentheses; string, number, boolean and NULL literals', async () => {
    const { q } = await setup();
    expect(await q("SELECT name FROM Customer WHERE (city = 'Paris' OR age < 25) AND NOT (vip = TRUE) ORDER BY name")).toEqual([{ name: 'Bob' }, { name: 'Cy' }]);
    expect(await q('SELECT name FROM Customer WHERE vip = FALSE')).toEqual([{ name: 'Bob' }]);
    expect(await q('SELECT name FROM Customer WHERE age = 35.0 OR age = -1')).toEqual([{ name: 'Dee' }]);
    expect(await q('SELECT name, vip FROM Customer WHERE vip IS NULL')).toEqual([{ name: 'Cy', vip: null }]);
    expect(await q('SELECT name FROM Customer WHERE vip IS NOT NULL AND age > 25 ORDER BY age')).toEqual([{ name: 'Ann' }, { name: 'Dee' }]);
    expect(await q("SELECT 'x' AS s, 2 * 3 AS n, NULL AS z, TRUE AS t FROM Customer WHERE code = 'A'")).toEqual([{ s: 'x', n: 6, z: null, t: true }]);
  });

  it('IN, NOT IN, BETWEEN, NOT BETWEEN, LIKE (case-insensitive, % and _)', async () => {
    const { q } = await setup();
    expect(await q("SELECT code FROM Customer WHERE city IN ('Lyon', 'Nice') ORDER BY code")).toEqual([{ code: 'B' }, { code: 'D' }]);
    expect(await q('SELECT code FROM Customer WHERE age NOT IN (30, 40) ORDER BY code')).toEqual([{ code: 'B' }, { code: 'D' }]);
    expect(await q('SELECT code FROM Customer WHERE age BETWEEN 30 AND 35 ORDER BY code')).toEqual([{ code: 'A' }, { code: 'D' }]);
    expect(await q('SELECT code FROM Customer WHERE age NOT BETWEEN 30 AND 35 ORDER BY code')).toEqual([{ code: 'B' }, { code: 'C' }]);
    expect(await q("SELECT name FROM Customer WHERE name LIKE 'a%'")).toEqual([{ name: 'Ann' }]);
    expect(await q("SELECT name FROM Customer WHERE name LIKE '_e%'")).toEqual([{ name: 'Dee' }]);
    expect(await q("SELECT name FROM Customer WHERE name NOT LIKE '%n%' ORDER BY name")).toEqual([{ name: 'Bob' }, { name: 'Cy' }, { name: 'Dee' }]);
  });

  it('INNER and LEFT joins, on equality and on other conditions', async () => {
    const { q } = await setup();
    expect(await q('SELECT c.name, o.amount FROM Customer c JOIN "Order" o ON o.customer = c._id WHERE o.amount > 8 ORDER BY o.amount')).toEqual([
      { name: 'Ann', amount: 10 },
      { name: 'Ann', amount: 20 },
      { name: 'Dee', amount: 50 },
    ]);
    expect(await q('SELECT c.name, o.amount FROM Customer c LEFT JOIN `Order` o ON o.customer = c._id AND o.status = \'open\' ORDER BY c.name')).toEqual([
      { name: 'Ann', amount: 20 },
      { name: 'Bob', amount: null },
      { name: 'Cy', amount: null },
      { name: 'Dee', amount: null },
    ]);
    // a non-equality join: each customer with the orders larger than their age
    expect(await q('SELECT c.code, o.amount FROM Customer c INNER JOIN "Order" o ON o.amount > c.age ORDER BY c.code, o.amount')).toEqual([
      { code: 'A', amount: 50 },
      { code: 'B', amount: 50 },
      { code: 'C', amount: 50 },
      { code: 'D', amount: 50 },
    ]);
  });

  it('GROUP BY with COUNT, SUM, AVG, MIN, MAX; HAVING; ORDER BY several keys; LIMIT and OFFSET; DISTINCT', async () => {
    const { q } = await setup();
    expect(await q('SELECT city, COUNT(*) AS n, SUM(age) AS total_age, AVG(age) AS mean, MIN(age) AS youngest, MAX(age) AS oldest FROM Customer GROUP BY city ORDER BY n DESC, city')).toEqual([
      { city: 'Paris', n: 2, total_age: 70, mean: 35, youngest: 30, oldest: 40 },
      { city: 'Lyon', n: 1, total_age: 20, mean: 20, youngest: 20, oldest: 20 },
      { city: 'Nice', n: 1, total_age: 35, mean: 35, youngest: 35, oldest: 35 },
    ]);
    expect(await q('SELECT o.customer, SUM(o.amount) AS spent FROM "Order" o GROUP BY o.customer HAVING SUM(o.amount) >= 30 ORDER BY spent')).toHaveLength(2);
    expect(await q('SELECT name FROM Customer ORDER BY city DESC, age ASC')).toEqual([{ name: 'Ann' }, { name: 'Cy' }, { name: 'Dee' }, { name: 'Bob' }]);
    expect(await q('SELECT name FROM Customer ORDER BY age LIMIT 2 OFFSET 1')).toEqual([{ name: 'Ann' }, { name: 'Dee' }]);
    expect(await q('SELECT DISTINCT city FROM Customer ORDER BY city')).toEqual([{ city: 'Lyon' }, { city: 'Nice' }, { city: 'Paris' }]);
  });

  it('subqueries: IN, EXISTS, NOT EXISTS and scalar; UNION and UNION ALL', async () => {
    const { q } = await setup();
    expect(await q("SELECT name FROM Customer WHERE _id IN (SELECT customer FROM \"Order\" WHERE status = 'paid') ORDER BY name")).toEqual([{ name: 'Ann' }, { name: 'Bob' }, { name: 'Dee' }]);
    expect(await q('SELECT name FROM Customer c WHERE EXISTS (SELECT 1 FROM "Order" o WHERE o.customer = c._id AND o.amount > 15) ORDER BY name')).toEqual([{ name: 'Ann' }, { name: 'Dee' }]);
    expect(await q('SELECT name FROM Customer c WHERE NOT EXISTS (SELECT 1 FROM "Order" o WHERE o.customer = c._id)')).toEqual([{ name: 'Cy' }]);
    expect(await q('SELECT name FROM Customer WHERE age > (SELECT AVG(age) FROM Customer) ORDER BY name')).toEqual([{ name: 'Cy' }, { name: 'Dee' }]);
    expect(await q("SELECT city FROM Customer WHERE code = 'A' UNION SELECT city FROM Customer WHERE code = 'C'")).toEqual([{ city: 'Paris' }]);
    expect(await q("SELECT city FROM Customer WHERE code = 'A' UNION ALL SELECT city FROM Customer WHERE code = 'C'")).toEqual([{ city: 'Paris' }, { city: 'Paris' }]);
  });

  it('-- and /* */ comments; reserved words as names with backticks or double quotes; system columns', async () => {
    const { q, stack } = await setup();
    const rows = await q(`-- the paid orders
      SELECT "o"."amount" /* a reserved table name */ FROM "Order" AS o -- quoted
      WHERE \`o\`.status = 'paid' ORDER BY amount`);
    expect(rows).toEqual([{ amount: 5 }, { amount: 10 }, { amount: 50 }]);
    const [one] = await q("SELECT _id, `~createTimestamp` AS created, \"~updateTimestamp\" AS updated, active FROM Customer WHERE code = 'A'");
    const ann = await stack.getDocument(one._id as string);
    expect(one).toEqual({ _id: ann!._id, created: ann!['~createTimestamp'], updated: null, active: true });
  });

  it('SELECT * gives every attribute and system column, missing values as NULL', async () => {
    const { q, ids } = await setup();
    const [cy] = await q("SELECT * FROM Customer WHERE code = 'C'");
    expect(cy).toMatchObject({ _id: ids.cy, code: 'C', name: 'Cy', age: 40, city: 'Paris', vip: null, active: true, '~updateTimestamp': null });
    expect(Object.keys(cy).sort()).toEqual(['_id', '~createTimestamp', '~updateTimestamp', 'active', 'age', 'city', 'code', 'name', 'vip'].sort());
  });

  it('a relation domain is a table (sourceId, targetId)', async () => {
    const { q, stack, ids } = await setup();
    const { Domain } = await import('../../../plugins/domains/index.js');
    const knows = await Domain.create(stack, null, 'Knows', 'domain', 'N:N', 'Customer', 'Customer');
    await knows.addRelation(ids.ann, ids.bob);
    await knows.addRelation(ids.ann, ids.dee);
    expect(await q('SELECT t.name FROM Knows k JOIN Customer t ON t._id = k.targetId WHERE k.sourceId = ? ORDER BY t.name', [ids.ann])).toEqual([{ name: 'Bob' }, { name: 'Dee' }]);
    await knows.deleteRelation(ids.ann, ids.bob);
    expect(await q('SELECT COUNT(*) AS n FROM Knows')).toEqual([{ n: 1 }]);
    expect(await q('SELECT COUNT(*) AS n FROM Knows WHERE active = false')).toEqual([{ n: 1 }]);
  });
});
