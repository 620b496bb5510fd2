/**
 * A statement's budget (plugins/sql/budget.ts): rows read, join combinations, LIKE steps, a
 * deadline — from the plugin's option or a call's own, on SELECT and on the SELECT an UPDATE
 * runs; none by default for a stack's own statements.
 */
import { describe, expect, it } from 'vitest';
import { browser } from '../../../plugins.config.js';
import { sqlPlugin } from '../../../plugins/sql/index.js';
import { shop, sqlStack } from './fixture.js';

const budget = (reason: string) => ({ code: 'DS_SQL_BUDGET', status: 422, details: expect.objectContaining({ reason }) });

describe('the cost budget of a statement', () => {
  it('refuses past rows, combinations, LIKE steps or the deadline (SELECT and UPDATE), admits within, and has none by default', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const join3 = 'SELECT COUNT(*) AS c FROM Customer a JOIN Customer b ON a.age < b.age JOIN "Order" o ON o.customer = a._id';
    // no budget by default: 4 × 4 × 4 combinations run
    expect(await stack.sql(join3)).toEqual([{ c: 8 }]);
    await expect(stack.sql(join3, [], { budget: { combinations: 63 } })).rejects.toMatchObject(budget('combinations'));
    expect(await stack.sql(join3, [], { budget: { combinations: 64 } })).toEqual([{ c: 8 }]);
    await expect(stack.sql('SELECT name FROM Customer', [], { budget: { rows: 3 } })).rejects.toMatchObject(budget('rows'));
    // an index read counts only what it reads
    expect(await stack.sql('SELECT name FROM Customer WHERE age = 30', [], { budget: { rows: 1 } })).toEqual([{ name: 'Ann' }]);
    await expect(stack.sql("SELECT name FROM Customer WHERE name LIKE '%x%'", [], { budget: { likeSteps: 5 } })).rejects.toMatchObject(budget('like'));
    await expect(stack.sql('SELECT name FROM Customer', [], { signal: AbortSignal.abort() })).rejects.toMatchObject(budget('deadline'));
    await expect(stack.sql('UPDATE Customer SET city = ? WHERE city = ?', ['Rome', 'Paris'], { budget: { rows: 2 } })).rejects.toMatchObject(budget('rows'));
    expect(await stack.sql("SELECT COUNT(*) AS c FROM Customer WHERE city = 'Rome'")).toEqual([{ c: 0 }]);

    // the plugin's option applies to every statement of the stack
    const bounded = await sqlStack({ plugins: [...browser, [sqlPlugin, { budget: { combinations: 10 } }]] });
    await shop(bounded);
    await expect(bounded.sql(join3)).rejects.toMatchObject(budget('combinations'));
    expect(await bounded.sql('SELECT COUNT(*) AS c FROM Customer')).toEqual([{ c: 4 }]);
  });

  it('refuses a join of whole classes from their counters, before reading any document; EXPLAIN still shows its plan', async () => {
    const stack = await sqlStack();
    await shop(stack);
    await stack.sql('SELECT name FROM Customer WHERE age = 30'); // the class's index is built once, on first use
    let reads = 0;
    // the sql plugin's store reads documents through the stack's storage range, classPages or get (a class's counter is a _local read)
    const { range, get, classPages } = stack.storage;
    const customer = (key: unknown) => String(key).startsWith('Customer-');
    stack.storage.range = ((...args: Parameters<typeof range>) => (customer(args[0]?.start) && reads++, range.apply(stack.storage, args))) as typeof range;
    stack.storage.get = ((...args: Parameters<typeof get>) => (customer(args[0]) && reads++, get.apply(stack.storage, args))) as typeof get;
    stack.storage.classPages = ((...args: Parameters<typeof classPages>) => (args[0] === 'Customer' && reads++, classPages.apply(stack.storage, args))) as typeof classPages;
    const join4 = 'SELECT COUNT(*) AS n FROM Customer a, Customer b, Customer c, Customer d';
    await expect(stack.sql(join4, [], { budget: { combinations: 255 } })).rejects.toMatchObject({ code: 'DS_SQL_BUDGET', details: expect.objectContaining({ reason: 'combinations', combinations: 256, estimated: true }) });
    expect(reads).toBe(0);
    expect(await stack.sql(join4, [], { budget: { combinations: 256 } })).toEqual([{ n: 256 }]);
    expect(reads).toBeGreaterThan(0);
    expect(await stack.sql(`EXPLAIN ${join4}`, [], { budget: { combinations: 255 } })).toHaveLength(4);
  });
});
