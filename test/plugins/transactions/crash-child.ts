/**
 * The crash test's child (crash.test.ts): opens the leveldb stack (recovery runs there), reports
 * what it finds, then runs transactions of 10 documents (9 items of one batch + the counter)
 * until it is killed. Run: node --import tsx crash-child.ts <dataDir> <name> <run> <lastBegun|->
 */
import { createStack, getApi } from '../../../index.js';
import { transactionsPlugin } from '../../../plugins/transactions/index.js';
import { browser } from '../../../plugins.config.js';

const COUNTER_ID = 'Counter-main';
const PER_TX = 9;

const [dataDir, name, run, lastBegun] = process.argv.slice(2);
const stack = await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser });
const recovery = getApi(stack, transactionsPlugin)!.recovery;

const items = await stack.findDocuments('Item');
const batches = new Map<string, number>();
for (const item of items) batches.set(item.batch as string, (batches.get(item.batch as string) ?? 0) + 1);
let keysOk = true;
for (const item of items) if ((await stack.primaryKeys.lookup('Item', [item.k])) !== item._id) keysOk = false;
// the keys of a batch that is not there must be free again (its claims released)
if (lastBegun !== '-' && !batches.has(lastBegun)) {
  for (let k = 0; k < PER_TX; k++) if ((await stack.primaryKeys.lookup('Item', [`${lastBegun}-${k}`])) !== null) keysOk = false;
}
const counter = await stack.getDocument(COUNTER_ID);
const report = {
  items: items.length,
  batches: [...batches.keys()],
  partial: [...batches.values()].filter((n) => n !== PER_TX).length,
  counterOk: counter?.value === items.length,
  keysOk,
  recovery: recovery.commit?.outcome ?? null,
};
console.log(`report ${JSON.stringify(report)}`);

for (let i = 0; ; i++) {
  const batch = `${run}-${i}`;
  console.log(`begin ${batch}`);
  await stack.transaction(async (tx) => {
    await tx.createDocs(Array.from({ length: PER_TX }, (_, k) => ({ '~class': 'Item', k: `${batch}-${k}`, batch })));
    const current = (await tx.getDocument(COUNTER_ID))!;
    await tx.updateDoc(COUNTER_ID, { value: (current.value as number) + PER_TX });
  });
  console.log(`commit ${batch}`);
}
