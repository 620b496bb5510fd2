import { describe, expect, it } from 'vitest';
import { Class, createStack, definePlugin } from '../../../index.js';
import { addTrigger, registerTriggerHandler } from '../../../plugins/triggers/index.js';
import type { WriteResult } from '../../../plugins/sql/index.js';
import { browserWithSql } from '../../../plugins.config.js';
import { expectRefused, testAdapter, track, uniqueName } from '../../helpers/stack.js';
import { shop, sqlStack } from './fixture.js';

describe('sql: INSERT, UPDATE and DELETE through the document pipeline', () => {
  it('INSERT stores documents (defaults, validation) and returns their count and ids', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const result = await stack.sql<WriteResult>("INSERT INTO Customer (code, name, age) VALUES ('E', 'Eve', 28), (?, ?, ?)", ['F', 'Fay', 61]);
    expect(result.count).toBe(2);
    const [eve, fay] = await Promise.all(result.ids.map((id) => stack.getDocument(id)));
    expect(eve).toMatchObject({ '~class': 'Customer', code: 'E', name: 'Eve', age: 28, active: true });
    expect(fay).toMatchObject({ code: 'F', age: 61 });
    expect(await stack.sql('SELECT name FROM Customer WHERE age > 60')).toEqual([{ name: 'Fay' }]);
    const copied = await stack.sql<WriteResult>("INSERT INTO Customer (code, name) SELECT code || '2', name FROM Customer WHERE city = 'Paris'");
    expect(copied.count).toBe(2);
    expect(await stack.sql("SELECT code FROM Customer WHERE code LIKE '%2' ORDER BY code")).toEqual([{ code: 'A2' }, { code: 'C2' }]);
  });

  it('a refused row refuses the whole INSERT and stores nothing; the error names the row', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const before = await stack.sql('SELECT COUNT(*) AS n FROM Customer');
    const wrongType = await expectRefused(stack.sql("INSERT INTO Customer (code, name, age) VALUES ('E', 'Eve', 28), ('F', 'Fay', 'old')"), 'DS_VALIDATION_TYPE', 'age');
    expect(wrongType.details).toMatchObject({ row: 2 });
    expect(wrongType.message).toMatch(/^Row 2: /);
    const duplicate = await expectRefused(stack.sql("INSERT INTO Customer (code, name) VALUES ('G', 'Gil'), ('A', 'Again')"), 'DS_UNIQUE_VIOLATION');
    expect(duplicate.details).toMatchObject({ row: 2 });
    await expectRefused(stack.sql("INSERT INTO Customer (code, nme) VALUES ('H', 'x')"), 'DS_SQL_COLUMN_UNKNOWN');
    await expectRefused(stack.sql("INSERT INTO Customer (code, active) VALUES ('H', FALSE)"), 'DS_SQL_REFUSED');
    await expectRefused(stack.sql("INSERT INTO Customer VALUES ('H')"), 'DS_SQL_REFUSED');
    expect(await stack.sql('SELECT COUNT(*) AS n FROM Customer')).toEqual(before);
  });

  it('UPDATE computes SET expressions over each row, validates, and refuses all rows or none', async () => {
    const stack = await sqlStack();
    const ids = await shop(stack);
    const result = await stack.sql<WriteResult>("UPDATE Customer SET age = age + 1, name = UPPER(name) WHERE city = 'Paris'");
    expect(result.count).toBe(2);
    expect(result.ids.sort()).toEqual([ids.ann, ids.cy].sort());
    expect(await stack.sql("SELECT name, age FROM Customer WHERE city = 'Paris' ORDER BY age")).toEqual([{ name: 'ANN', age: 31 }, { name: 'CY', age: 41 }]);
    expect((await stack.getDocument(ids.ann))!['~updateTimestamp']).toEqual(expect.any(String));
    // age / 7 is not a whole number for every row: none is updated
    await expectRefused(stack.sql('UPDATE Customer SET age = age / 7'), 'DS_VALIDATION_INTEGER', 'age');
    expect(await stack.sql('SELECT SUM(age) AS total_age FROM Customer')).toEqual([{ total_age: 127 }]);
    // NULL clears an attribute
    await stack.sql("UPDATE Customer SET vip = NULL WHERE code = 'A'");
    expect((await stack.getDocument(ids.ann))!.vip).toBeUndefined();
    await expectRefused(stack.sql("UPDATE Customer SET active = FALSE WHERE code = 'A'"), 'DS_SQL_REFUSED');
    expect(await stack.sql<WriteResult>("UPDATE Customer SET age = 1 WHERE code = 'nobody'")).toEqual({ count: 0, ids: [] });
  });

  it('UPDATE runs the triggers of the class', async () => {
    const seen: string[] = [];
    const audit = definePlugin({
      name: 'audit',
      requires: ['triggers'],
      setup(kernel) {
        registerTriggerHandler(kernel, 'audit.note', (doc) => {
          seen.push(String(doc.code));
          return { ...doc, city: `${String(doc.city)}!` };
        });
      },
    });
    const stack = track(await createStack({ name: uniqueName('sql-trig'), adapter: testAdapter, plugins: [...browserWithSql, audit] }));
    await shop(stack);
    await addTrigger(await Class.fetch(stack, 'Customer'), { name: 'note', when: 'before', on: ['update'], handler: 'audit.note' });
    await stack.sql('UPDATE Customer SET age = age + 1 WHERE age >= 35');
    expect(seen.sort()).toEqual(['C', 'D']);
    expect(await stack.sql('SELECT city FROM Customer WHERE age >= 36 ORDER BY city')).toEqual([{ city: 'Nice!' }, { city: 'Paris!' }]);
  });

  it('DELETE is a soft delete: rows become inactive and are hidden unless the statement names active', async () => {
    const stack = await sqlStack();
    const ids = await shop(stack);
    expect(await stack.sql<WriteResult>("DELETE FROM Customer WHERE city = 'Paris'")).toEqual({ count: 2, ids: expect.arrayContaining([ids.ann, ids.cy]) });
    expect(await stack.getDocument(ids.ann)).toBeNull();
    expect((await stack.getDocument(ids.ann, { includeInactive: true }))!.active).toBe(false);
    expect(await stack.sql('SELECT code FROM Customer ORDER BY code')).toEqual([{ code: 'B' }, { code: 'D' }]);
    expect(await stack.sql('SELECT code FROM Customer WHERE active = false ORDER BY code')).toEqual([{ code: 'A' }, { code: 'C' }]);
    expect(await stack.sql('SELECT code, active FROM Customer ORDER BY code')).toHaveLength(4);
    // an inactive primary key is free again: the key index only holds active documents
    await stack.sql("INSERT INTO Customer (code, name) VALUES ('A', 'Another Ann')");
    expect(await stack.sql("SELECT name FROM Customer WHERE code = 'A'")).toEqual([{ name: 'Another Ann' }]);
  });

  it('relation domains are read-only here: their API writes them', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const { Domain } = await import('../../../plugins/domains/index.js');
    await Domain.create(stack, null, 'Knows', 'domain', 'N:N', 'Customer', 'Customer');
    await expectRefused(stack.sql("DELETE FROM Knows WHERE sourceId = 'x'"), 'DS_SQL_REFUSED');
  });
});
