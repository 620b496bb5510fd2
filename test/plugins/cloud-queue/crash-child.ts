// A device for cloud-queue-crash.test.ts: opens a leveldb stack with the cloud queue (target and
// credentials from CLOUDANT_URL, as an operator would configure it), writes ITEMS documents when
// asked, and flushes. The test kills it with SIGKILL in the middle of a flush.
// argv: dataDir name mode(write|flush)
import { Class, createStack } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { cloudQueuePlugin } from '../../../plugins/cloud-queue/index.js';

export const ITEMS = 200;
const [dataDir, name, mode] = process.argv.slice(2);
const stack = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [...browser, [cloudQueuePlugin, { intervalMs: 0, batchSize: 25 }]] });
stack.on('cloud-queue:flushed', (e: { sent: number; seq: number }) => console.log(`flushed ${e.sent} ${e.seq}`));
if (mode === 'write') {
  await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
  await stack.createDocs(Array.from({ length: ITEMS }, (_, n) => ({ '~class': 'Item', n })));
  console.log('written');
}
const result = await stack.cloudQueue.flush();
console.log(`done ${JSON.stringify(result)}`);
await stack.close();
