/**
 * The counter crash test's child (count-crash.test.ts): opens the leveldb stack and writes Tags
 * without pause — serial creates, a bulk create over two storage calls, soft deletes, a purge — so
 * the class counter mostly holds changes only in memory, until it is killed (SIGKILL).
 * Run: node <bundle> <dataDir> <name> <run>
 */
import { createStack } from '../../index.js';

const [dataDir, name, run] = process.argv.slice(2);
const stack = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
console.log('ready');
for (let round = 0; ; round++) {
  const tag = (i: number) => ({ '~class': 'Tag', label: `${run}-${round}-${i}` });
  const made = [];
  for (let i = 0; i < 20; i++) made.push(await stack.createDoc(tag(i)));
  const bulk = await stack.createDocs(Array.from({ length: 300 }, (_, i) => tag(100 + i)));
  for (const doc of made.slice(0, 5)) await stack.deleteDocument(doc._id);
  await stack.purgeDocuments([made[0]._id, made[5]._id, bulk[0]._id]);
  console.log(`round ${round}`);
}
