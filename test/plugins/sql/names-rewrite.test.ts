import { describe, expect, it } from 'vitest';
import { prepare } from '../../../plugins/sql/lexer.js';
import { callerOffset, quoteNames, tableNames, tokenize } from '../../../plugins/sql/names.js';

const NAMES = new Set(['Item', 'value', 'count', 'order', 'group', 'set', 'values', 'top', 'sum', 'total', 'first', 'date', 'index', 'row', '~createTimestamp']);
const rewrite = (statement: string, names: ReadonlySet<string> = NAMES) => quoteNames(prepare(statement), tokenize(statement), names).text;

describe('sql: the names rewrite (names.ts), as text', () => {
  it('quotes a known name where it stands as a name, by position', () => {
    expect(rewrite('SELECT count FROM Item')).toBe('SELECT `count` FROM `Item`');
    expect(rewrite('SELECT COUNT(*), count(count) FROM Item')).toBe('SELECT COUNT(*), count(`count`) FROM `Item`');
    expect(rewrite('SELECT a FROM Item ORDER BY order DESC')).toBe('SELECT a FROM `Item` ORDER BY `order` DESC');
    expect(rewrite('SELECT group FROM Item GROUP BY group')).toBe('SELECT `group` FROM `Item` GROUP BY `group`');
    expect(rewrite('UPDATE Item SET set = 1, values = 2')).toBe('UPDATE `Item` SET `set` = 1, `values` = 2');
    expect(rewrite('INSERT INTO Item (values, value) VALUES (1, 2)')).toBe('INSERT INTO `Item` (`values`, `value`) VALUES (1, 2)');
    expect(rewrite('SELECT TOP 2 top, value FROM Item')).toBe('SELECT TOP 2 `top`, `value` FROM `Item`');
    expect(rewrite('SELECT VALUE value FROM Item')).toBe('SELECT VALUE `value` FROM `Item`');
    expect(rewrite('SELECT value * 2, index FROM Item')).toBe('SELECT `value` * 2, `index` FROM `Item`');
    expect(rewrite('SELECT DISTINCT row FROM Item')).toBe('SELECT DISTINCT `row` FROM `Item`');
    expect(rewrite('SELECT t.sum FROM Item t')).toBe('SELECT `t`.`sum` FROM `Item` t');
    expect(rewrite('SELECT CAST(total AS date) AS date FROM Item')).toBe('SELECT CAST(`total` AS date) AS `date` FROM `Item`');
    expect(rewrite('SELECT x FROM Item ORDER BY first ASC NULLS FIRST')).toBe('SELECT x FROM `Item` ORDER BY `first` ASC NULLS FIRST');
    expect(rewrite('SELECT ~createTimestamp FROM Item')).toBe('SELECT `~createTimestamp` FROM `Item`');
  });

  it('aliases and qualifiers are names; unknown words, strings, comments, parameters and quoted names are left alone', () => {
    expect(rewrite('SELECT total.a AS limit2, b AS total FROM T AS total', new Set())).toBe('SELECT `total`.a AS `limit2`, b AS `total` FROM T AS `total`');
    // comments are blanks by then (the lexer keeps every character at its place)
    expect(rewrite("SELECT 'count' FROM Item WHERE order = $value -- value\n/* set */")).toBe(`SELECT 'count' FROM \`Item\` WHERE \`order\` = $value ${' '.repeat(8)}\n${' '.repeat(9)}`);
    expect(rewrite('SELECT "value", `count` FROM Item')).toBe('SELECT `value`, `count` FROM `Item`');
    // a bracketed name is quoted already (a system column, a class named like a keyword)
    expect(rewrite('SELECT [~createTimestamp] AS at, [value] FROM Item')).toBe('SELECT [~createTimestamp] AS `at`, [value] FROM `Item`');
    expect(rewrite('SELECT total FROM Customer', new Set(['Customer', 'name']))).toBe('SELECT total FROM `Customer`');
    // names are exact: a keyword in another case is not a name
    expect(rewrite('SELECT Value FROM Item')).toBe('SELECT Value FROM `Item`');
  });

  it('finds the tables a statement names, and maps positions back', () => {
    expect(tableNames(tokenize('SELECT a, b FROM A x, "B" y JOIN C ON 1 = 1 WHERE a IN (SELECT c, d FROM D) UNION SELECT e FROM E, F'))).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    expect(tableNames(tokenize('INSERT INTO A (a) SELECT b FROM B'))).toEqual(['A', 'B']);
    expect(tableNames(tokenize('UPDATE A SET a = 1'))).toEqual(['A']);
    const statement = 'SELECT value, total FROM Item';
    const { text, inserted } = quoteNames(prepare(statement), tokenize(statement), new Set(['Item', 'value']));
    expect(text).toBe('SELECT `value`, total FROM `Item`');
    expect(callerOffset(inserted, text.indexOf('total'))).toBe(statement.indexOf('total'));
    expect(callerOffset(inserted, text.indexOf('Item'))).toBe(statement.indexOf('Item'));
  });
});
