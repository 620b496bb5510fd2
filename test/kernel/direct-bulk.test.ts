import { describe, expect, it } from 'vitest';
import { createStack } from '../../index.js';
import { storeDocs } from '../../storage/direct-bulk.js';
import type { Database } from '../../storage/database.js';
import { rawDb, tempDir, track, uniqueName } from '../helpers/stack.js';

/**
 * storage/direct-bulk.ts stores the engine's documents through the adapter's `_bulkDocs` with a
 * shallow copy each instead of pouchdb-core's deep clone: on the memory and leveldb adapters it
 * must answer and store exactly what the public `bulkDocs` does (same revisions: they hash the
 * body), leave the caller's objects as they were, and hand anything unusual to the public call.
 */

/** Counts the public bulkDocs calls of a store (its own property: nothing else is touched). */
function countPublic(db: Database): { calls: number } {
  const seen = { calls: 0 };
  const original = db.bulkDocs.bind(db);
  (db as unknown as { bulkDocs: unknown }).bulkDocs = (...args: Parameters<Database['bulkDocs']>) => {
    seen.calls++;
    return original(...args);
  };
  return seen;
}

for (const adapter of ['memory', 'leveldb'] as const) {
  describe(`direct bulk writes (${adapter})`, () => {
    async function openStore(): Promise<Database> {
      const dataDir = adapter === 'leveldb' ? await tempDir() : undefined;
      return rawDb(track(await createStack({ name: uniqueName('bulk'), adapter, dataDir, plugins: [] })));
    }

    it('answers and stores what the public bulkDocs does, and leaves the given objects unchanged', async () => {
      const [direct, twin] = [await openStore(), await openStore()];
      const seen = countPublic(direct);
      const first = () => [
        { _id: 'Thing-a', n: 1, tags: ['x'], nested: { deep: true } },
        { _id: 'Thing-b', n: 2 },
        { _id: '_local/~mark', count: 2 },
      ];
      const given = first();
      const answers = await storeDocs(direct, given);
      expect(answers).toEqual(await twin.bulkDocs(first() as never[]));
      expect(seen.calls).toBe(0);
      expect(given).toEqual(first()); // no _rev, no _rev_tree added to what the caller holds
      const revA = answers[0].rev!;
      // an update, a delete and a stale revision (refused: 409, named by its id)
      const second = () => [
        { _id: 'Thing-a', _rev: revA, n: 3 },
        { _id: 'Thing-b', _rev: answers[1].rev, _deleted: true },
        { _id: 'Thing-a', _rev: '1-0123456789abcdef0123456789abcdef', n: 4 },
      ];
      const again = second();
      const direct2 = await storeDocs(direct, again);
      const twin2 = await twin.bulkDocs(second() as never[]);
      expect(direct2).toEqual(JSON.parse(JSON.stringify(twin2)));
      expect(direct2[2]).toMatchObject({ id: 'Thing-a', status: 409 });
      expect(again[0]._rev).toBe(revA);
      for (const id of ['Thing-a', '_local/~mark']) expect(await direct.get(id)).toEqual(await twin.get(id));
      await expect(direct.get('Thing-b')).rejects.toMatchObject({ status: 404 });
      expect(seen.calls).toBe(0);
    });

    it('hands attachments and a malformed revision to the public bulkDocs (same answers)', async () => {
      const db = await openStore();
      const seen = countPublic(db);
      const [withFile] = await storeDocs(db, [{ _id: 'f', _attachments: { 'a.txt': { content_type: 'text/plain', data: Buffer.from('hi').toString('base64') } } }]);
      expect(withFile.ok).toBe(true);
      expect(seen.calls).toBe(1);
      await expect(storeDocs(db, [{ _id: 'g', _rev: 'not-a-rev' }])).rejects.toMatchObject({ status: 400 });
      expect(seen.calls).toBe(2);
    });

    it('a closed store rejects (the public call answers it)', async () => {
      const dataDir = adapter === 'leveldb' ? await tempDir() : undefined;
      const stack = await createStack({ name: uniqueName('bulk'), adapter, dataDir, plugins: [] });
      const db = rawDb(stack);
      await stack.close();
      await expect(storeDocs(db, [{ _id: 'x' }])).rejects.toThrow(/closed/);
    });
  });
}
