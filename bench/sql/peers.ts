import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import pouchdbFind from 'pouchdb-find';
import { registerPouchPlugin } from '../../storage/pouch-plugins.js';
import { rawDatabase } from '../../storage/raw-database.js';
import type { ClientStack } from '../../engine/client-stack.js';
import { READINGS, valueOf } from './data.js';

/** pouchdb-find on the stack's own store: an index on `score` (built outside the timing). */
export async function pouchdbFindRange(stack: ClientStack): Promise<(lo: number, hi: number) => Promise<number>> {
  registerPouchPlugin(pouchdbFind as unknown as PouchDB.Plugin);
  const db = rawDatabase(stack) as unknown as PouchDB.Database & { createIndex(o: object): Promise<unknown>; find(o: object): Promise<{ docs: unknown[] }> };
  await db.createIndex({ index: { fields: ['score'] } });
  await db.find({ selector: { score: { $gte: 0, $lt: 1 } } }); // builds the view
  return async (lo, hi) => (await db.find({ selector: { score: { $gte: lo, $lt: hi } }, limit: READINGS })).docs.length;
}

/**
 * RxDB with its open-source memory storage (bench/peers): the same readings, an index on
 * `value`. Undefined when bench/peers has not installed it (`npm run bench:peers`).
 */
export async function rxdbRange(log: (line: string) => void): Promise<{ query: (lo: number, hi: number) => Promise<number>; close: () => Promise<unknown> } | undefined> {
  const require = createRequire(fileURLToPath(new URL('../peers/package.json', import.meta.url)));
  let core: any;
  let memory: any;
  try {
    core = await import(require.resolve('rxdb'));
    memory = await import(require.resolve('rxdb/plugins/storage-memory'));
  } catch {
    log('sql: rxdb is not installed in bench/peers; skipped');
    return undefined;
  }
  const db = await core.createRxDatabase({ name: `bench${Date.now()}`, storage: memory.getRxStorageMemory() });
  await db.addCollections({
    readings: {
      schema: {
        version: 0,
        primaryKey: 'id',
        type: 'object',
        properties: { id: { type: 'string', maxLength: 20 }, value: { type: 'integer', minimum: 0, maximum: READINGS, multipleOf: 1 }, grp: { type: 'integer' }, label: { type: 'string' } },
        required: ['id', 'value'],
        indexes: ['value'],
      },
    },
  });
  for (let start = 0; start < READINGS; start += 10_000) {
    await db.readings.bulkInsert(Array.from({ length: 10_000 }, (_, k) => ({ id: `R${start + k}`, value: valueOf(start + k), grp: (start + k) % 100, label: `reading ${start + k}` })));
  }
  return {
    query: async (lo, hi) => (await db.readings.find({ selector: { value: { $gte: lo, $lt: hi } } }).exec()).length,
    close: () => db.remove(),
  };
}
