import { describe, expect, it } from 'vitest';
import { expectRefused } from '../../helpers/stack.js';
import { shop, sqlStack } from './fixture.js';

async function setup() {
  const stack = await sqlStack();
  await shop(stack);
  return stack;
}

describe('sql: parameters', () => {
  it('`?` takes an array, `$name` an object; a list parameter fills IN (?)', async () => {
    const stack = await setup();
    expect(await stack.sql('SELECT name FROM Customer WHERE age > ? AND city = ? ORDER BY name', [25, 'Paris'])).toEqual([{ name: 'Ann' }, { name: 'Cy' }]);
    expect(await stack.sql('SELECT name FROM Customer WHERE age BETWEEN $lo AND $hi ORDER BY age', { lo: 25, hi: 35 })).toEqual([{ name: 'Ann' }, { name: 'Dee' }]);
    expect(await stack.sql('SELECT name FROM Customer WHERE code IN (?) ORDER BY name', [['B', 'C']])).toEqual([{ name: 'Bob' }, { name: 'Cy' }]);
    expect(await stack.sql('SELECT name FROM Customer WHERE code IN ($codes)', { codes: [] })).toEqual([]);
    // a value is only ever a value: quotes in it are text, not SQL
    expect(await stack.sql('SELECT name FROM Customer WHERE name = ?', ["Ann' OR '1'='1"])).toEqual([]);
  });

  it('missing, extra or mismatched parameters are DS_SQL_PARAMS', async () => {
    const stack = await setup();
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE age > ?'), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE age > ?', [1, 2]), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE age > ?', { age: 1 }), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE age > $age', {}), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE age > $age', [1]), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE age > ? AND age < $x', [1]), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE name = ?', [{ $gt: '' }]), 'DS_SQL_PARAMS');
    await expectRefused(stack.sql('SELECT name FROM Customer', [1]), 'DS_SQL_PARAMS');
  });
});

describe('sql: refusals', () => {
  it('constructs that would create tables, run JavaScript or reach outside are DS_SQL_REFUSED', async () => {
    const stack = await setup();
    for (const statement of [
      'CREATE TABLE x (a INT)',
      'DROP TABLE Customer',
      "ATTACH DATABASE x('y')",
      "REQUIRE 'fs'",
      "SELECT * INTO CSV('out.csv') FROM Customer",
      'SELECT * INTO Customer FROM Customer',
      'SELECT ``process.exit()`` FROM Customer',
      "CREATE FUNCTION f AS ``function () { return 1 }``",
      'SELECT MYFUNC(name) FROM Customer',
      'SELECT name->length FROM Customer',
      'SELECT @x FROM Customer',
      'SELECT * FROM ?',
      "SELECT * FROM CSV('data.csv')",
      'SELECT VALUE name FROM Customer',
      'SELECT name FROM Customer; SELECT age FROM Customer',
      'SET @x = 1',
    ]) {
      const err = await stack.sql(statement).then(() => null, (e) => e);
      expect([statement, err?.code]).toEqual([statement, expect.stringMatching(/^DS_SQL_(REFUSED|SYNTAX)$/)]);
    }
    await expectRefused(stack.sql('SELECT ``1+1`` FROM Customer'), 'DS_SQL_REFUSED');
    await expectRefused(stack.sql("SELECT * INTO CSV('out.csv') FROM Customer"), 'DS_SQL_REFUSED');
    await expectRefused(stack.sql('CREATE TABLE x (a INT)'), 'DS_SQL_REFUSED');
  });

  it('a name that could escape into generated code is refused', async () => {
    const stack = await setup();
    // names are spliced into the code alasql compiles: only identifiers get there
    await expectRefused(stack.sql('SELECT `a b` FROM Customer'), 'DS_SQL_REFUSED');
    await expectRefused(stack.sql('SELECT name AS `x.y` FROM Customer'), 'DS_SQL_REFUSED');
    for (const statement of ["SELECT `a']+process.exit()+['` FROM Customer", "SELECT name AS `x'y` FROM Customer", 'SELECT "a\\" FROM Customer']) {
      const err = await stack.sql(statement).then(() => null, (e) => e);
      expect(err?.code).toMatch(/^DS_SQL_(REFUSED|SYNTAX|COLUMN_UNKNOWN)$/);
    }
  });

  it('a syntax error is DS_SQL_SYNTAX with line, column and the text near it', async () => {
    const stack = await setup();
    const err = await expectRefused(stack.sql('SELECT name\nFROM Customer\nWHERE age > > 3'), 'DS_SQL_SYNTAX');
    expect(err.details).toMatchObject({ line: 3, near: expect.stringContaining('>') });
    expect(err.message).toMatch(/line 3/);
    await expectRefused(stack.sql("SELECT name FROM Customer WHERE name = 'open"), 'DS_SQL_SYNTAX');
    await expectRefused(stack.sql(''), 'DS_SQL_SYNTAX');
    // a reserved word used as a name (here no column of the table: see names.test.ts) says how to quote it
    const reserved = await expectRefused(stack.sql('SELECT total FROM Customer'), 'DS_SQL_SYNTAX');
    expect(reserved.message).toMatch(/Quote reserved words/);
  });

  it('an unknown class and an unknown column have their own codes', async () => {
    const stack = await setup();
    expect((await expectRefused(stack.sql('SELECT * FROM Nowhere'), 'DS_SQL_TABLE_UNKNOWN')).details).toEqual({ table: 'Nowhere' });
    expect((await expectRefused(stack.sql('SELECT nme FROM Customer'), 'DS_SQL_COLUMN_UNKNOWN')).details).toEqual({ table: null, column: 'nme' });
    await expectRefused(stack.sql('SELECT c.nme FROM Customer c'), 'DS_SQL_COLUMN_UNKNOWN');
    await expectRefused(stack.sql('SELECT x.name FROM Customer c'), 'DS_SQL_COLUMN_UNKNOWN');
    // a double-quoted word is a name, as in standard SQL: strings are in single quotes
    await expectRefused(stack.sql('SELECT name FROM Customer WHERE name = "Ann"'), 'DS_SQL_COLUMN_UNKNOWN');
    // an output alias may be used in ORDER BY
    expect(await stack.sql('SELECT age * 2 AS twice FROM Customer ORDER BY twice LIMIT 1')).toEqual([{ twice: 40 }]);
  });
});

describe('sql: the plugin', () => {
  it('takes the alasql module from the application (a browser bundle) and a cache size', async () => {
    const { default: alasql } = await import('alasql');
    const { browser } = await import('../../../plugins.config.js');
    const { sqlPlugin } = await import('../../../plugins/sql/index.js');
    const stack = await sqlStack({ plugins: [...browser, [sqlPlugin, { alasql, cacheSize: 0 }]] });
    await shop(stack);
    expect(await stack.sql('SELECT COUNT(*) AS n FROM Customer WHERE age > 25')).toEqual([{ n: 3 }]);
  });

  it('is not in the browser preset; is in browserWithSql and in the server one', async () => {
    const config: Partial<typeof import('../../../plugins.config.js')> = await import('../../../plugins.config.js');
    const names = (preset: readonly unknown[]) => preset.map((e) => (Array.isArray(e) ? e[0] : e) as { name: string }).map((p) => p.name);
    expect(names(config.browser!)).not.toContain('sql');
    expect(names(config.browserWithSql!)).toContain('sql');
    // the server preset is where a node runs (Node); the browser files do not carry it
    if (typeof window === 'undefined') expect(names(config.server!)).toContain('sql');
  });
});
