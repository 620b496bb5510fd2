import { Class, createStack, type PluginEntry, type StackOptions } from '../../../index.js';
import { browserWithSql, type BrowserSqlStack } from '../../../plugins.config.js';
import { testAdapter, track, uniqueName } from '../../helpers/stack.js';

/** A memory stack with the browser preset plus SQL, closed after the test. */
export async function sqlStack(options: Partial<StackOptions> & { plugins?: readonly PluginEntry[] } = {}): Promise<BrowserSqlStack> {
  return track((await createStack({ name: uniqueName('sql'), adapter: testAdapter, plugins: browserWithSql, ...options })) as BrowserSqlStack);
}

/**
 * The fixed data of the language tests:
 *   Customer (code pk, name, age indexed, city, vip)
 *     A Ann 30 Paris vip · B Bob 20 Lyon not vip · C Cy 40 Paris (no vip) · D Dee 35 Nice vip
 *   Order (customer → Customer, amount, status)
 *     Ann 10 paid, Ann 20 open, Bob 5 paid, Dee 50 paid
 */
export async function shop(stack: BrowserSqlStack): Promise<Record<string, string>> {
  await Class.create(stack, 'Customer', 'class', '', {
    code: { type: 'string', primaryKey: true },
    name: { type: 'string' },
    age: { type: 'integer', indexed: true },
    city: { type: 'string' },
    vip: { type: 'boolean' },
  });
  await Class.create(stack, 'Order', 'class', '', {
    customer: { type: 'foreign_key', targetClass: 'Customer', indexed: true },
    amount: { type: 'decimal' },
    status: { type: 'enum', values: ['open', 'paid'] },
  });
  const [ann, bob, cy, dee] = await stack.createDocs([
    { '~class': 'Customer', code: 'A', name: 'Ann', age: 30, city: 'Paris', vip: true },
    { '~class': 'Customer', code: 'B', name: 'Bob', age: 20, city: 'Lyon', vip: false },
    { '~class': 'Customer', code: 'C', name: 'Cy', age: 40, city: 'Paris' },
    { '~class': 'Customer', code: 'D', name: 'Dee', age: 35, city: 'Nice', vip: true },
  ]);
  await stack.createDocs([
    { '~class': 'Order', customer: ann._id, amount: 10, status: 'paid' },
    { '~class': 'Order', customer: ann._id, amount: 20, status: 'open' },
    { '~class': 'Order', customer: bob._id, amount: 5, status: 'paid' },
    { '~class': 'Order', customer: dee._id, amount: 50, status: 'paid' },
  ]);
  return { ann: ann._id, bob: bob._id, cy: cy._id, dee: dee._id };
}
