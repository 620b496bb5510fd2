import { describe, expect, it } from 'vitest';
import { createStack } from '../../index.js';
import { readStored } from '../../storage/direct-get.js';
import type { Database } from '../../storage/database.js';
import { rawDb, tempDir, track, uniqueName } from '../helpers/stack.js';

/**
 * storage/direct-get.ts reads by id through the adapter's `_get` (no pouchdb-core wrapper): it
 * must answer exactly what `db.get` answers for a plain read — on the memory and leveldb adapters
 * the suite runs, for a stored, a missing, a deleted, an attachment-holding and a `_local`
 * document — and take the public `get` where the direct call does not fit.
 */

/** Counts the store's direct `_get` calls (the instance's own, so nothing else is touched). */
function countDirect(db: Database): { calls: number } {
  const seen = { calls: 0 };
  const pouch = db as unknown as { _get: (...args: unknown[]) => unknown };
  const original = pouch._get.bind(db);
  pouch._get = (...args: unknown[]) => {
    seen.calls++;
    return original(...args);
  };
  return seen;
}

async function publicGet(db: Database, id: string): Promise<unknown> {
  try {
    return await db.get(id);
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}

for (const adapter of ['memory', 'leveldb'] as const) {
  describe(`direct reads by id (${adapter})`, () => {
    async function openStack() {
      const dataDir = adapter === 'leveldb' ? await tempDir() : undefined;
      return track(await createStack({ name: uniqueName('direct'), adapter, dataDir, plugins: [] }));
    }
    const openStore = async (): Promise<Database> => rawDb(await openStack());

    it('answers what db.get answers: stored, missing, deleted, with an attachment (a stub), _local', async () => {
      const db = await openStore();
      await db.put({ _id: 'plain', n: 1, nested: { a: [1, 2] } });
      const gone = await db.put({ _id: 'gone', n: 2 });
      await db.remove('gone', gone.rev);
      await db.put({ _id: 'with-file', _attachments: { 'a.txt': { content_type: 'text/plain', data: Buffer.from('hello').toString('base64') } } } as never);
      await db.put({ _id: '_local/marker', n: 3 });
      const seen = countDirect(db);
      for (const id of ['plain', 'missing', 'gone', 'with-file', '_local/marker']) {
        expect(await readStored(db, id), id).toEqual(await publicGet(db, id));
      }
      expect(await readStored(db, 'plain')).toMatchObject({ _id: 'plain', n: 1, nested: { a: [1, 2] } });
      expect(await readStored(db, 'gone')).toBeNull();
      expect(((await readStored(db, 'with-file')) as { _attachments: Record<string, { stub?: boolean }> })._attachments['a.txt'].stub).toBe(true);
      // the four plain ids went direct (twice: once each for the two checks above); _local took db.get
      expect(seen.calls).toBeGreaterThanOrEqual(4 + 3);
      const before = seen.calls;
      await readStored(db, '_local/marker');
      expect(seen.calls).toBe(before);
    });

    it('a closed store rejects as db.get does (the public get answers it)', async () => {
      const stack = await openStack();
      const db = rawDb(stack);
      await stack.close();
      await expect(readStored(db, 'any')).rejects.toThrow(/closed/);
    });

    it('a store logging its calls (a debug listener) is read through the public get', async () => {
      const db = await openStore();
      await db.put({ _id: 'plain', n: 1 });
      const logged: unknown[] = [];
      const emitter = (db as unknown as { constructor: { on(e: string, f: (...a: unknown[]) => void): void; removeAllListeners(e: string): void } }).constructor;
      emitter.on('debug', (...args) => logged.push(args));
      try {
        expect(await readStored(db, 'plain')).toMatchObject({ n: 1 });
      } finally {
        emitter.removeAllListeners('debug');
      }
      // the public get logs its call (a direct read would not)
      expect(logged.some((args) => (args as unknown[][])[0][0] === 'api' && (args as unknown[][])[0].includes('get'))).toBe(true);
    });
  });
}
