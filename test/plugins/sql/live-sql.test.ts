/**
 * stack.liveSql (issue #31): a SELECT run now, then again one tick after a change to a class it
 * reads (a join's classes included), published only when its rows differ; a change to another
 * class runs nothing; close stops it, closing the stack closes it.
 */
import { describe, expect, it, vi } from 'vitest';
import { shop, sqlStack } from './fixture.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('stack.liveSql', () => {
  it('follows the classes a join reads, publishes changed rows only, and stops on close', async () => {
    const stack = await sqlStack();
    const ids = await shop(stack);
    const statement = 'SELECT c.name, SUM(o.amount) AS total FROM Customer c JOIN "Order" o ON o.customer = c._id WHERE o.status = ? GROUP BY c.name ORDER BY c.name';
    const handle = stack.liveSql(statement, ['paid']);
    const seen: unknown[] = [];
    handle.subscribe((rows) => seen.push(rows));
    expect(await handle.ready).toEqual([{ name: 'Ann', total: 10 }, { name: 'Bob', total: 5 }, { name: 'Dee', total: 50 }]);

    await stack.createDoc({ '~class': 'Order', customer: ids.cy, amount: 7, status: 'paid' });
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(handle.current).toEqual(await stack.sql(statement, ['paid']));
    expect(handle.current).toContainEqual({ name: 'Cy', total: 7 });
    // an order that is not paid runs the statement again, but its rows are the same: nothing published
    await stack.createDoc({ '~class': 'Order', customer: ids.cy, amount: 100, status: 'open' });
    await settle();
    expect(seen).toHaveLength(2);
    // a change to the other class of the join
    await stack.updateDoc(ids.bob, { name: 'Bobby' });
    await vi.waitFor(() => expect(handle.current).toContainEqual({ name: 'Bobby', total: 5 }));

    handle.close();
    await stack.updateDoc(ids.ann, { name: 'Anna' });
    await settle();
    expect(handle.current).toContainEqual({ name: 'Ann', total: 10 });
    expect(stack.listenerCount('relation')).toBe(0);
  });

  it('runs nothing for a class it does not read, refuses a write statement, and is closed with the stack', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const run = vi.fn();
    const handle = stack.liveSql('SELECT COUNT(*) AS n FROM Customer');
    await handle.ready;
    handle.subscribe(run);
    expect(run).toHaveBeenCalledTimes(1);
    await stack.createDocs([{ '~class': 'Customer', code: 'E', name: 'Eve' }, { '~class': 'Customer', code: 'F', name: 'Fay' }]);
    await vi.waitFor(() => expect(handle.current).toEqual([{ n: 6 }]));
    expect(run).toHaveBeenCalledTimes(2); // two documents of one call: one run
    const orders = await stack.findDocuments('Order');
    await stack.updateDoc(orders[0]._id, { amount: 11 });
    await settle();
    expect(run).toHaveBeenCalledTimes(2);
    expect(() => stack.liveSql("UPDATE Customer SET name = 'x'")).toThrow(expect.objectContaining({ code: 'DS_SQL_SYNTAX' }));
    await stack.close();
    expect(handle.closed).toBe(true);
  });
});
