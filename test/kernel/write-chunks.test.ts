import { describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { writeChunkOf, type Database } from '../../storage/database.js';
import { INDEXEDDB_WRITE_CHUNK, STORAGE_WRITE_CHUNK } from '../../storage/write-chunks.js';
import { countCalls, kernelStack, rawDb } from '../helpers/stack.js';

describe('a large write is split in calls of its adapter\'s size (storage/write-chunks.ts)', () => {
  it('on memory (leveldb-core) 250 documents a call; IndexedDB\'s adapter takes 10,000 (test/browser/storage.test.ts writes it)', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Note', 'class', '', { code: { type: 'string', primaryKey: true } });
    const seen = countCalls(stack);
    await stack.createDocs(Array.from({ length: 600 }, (_, i) => ({ '~class': 'Note', code: `N${i}` })));
    // the first call also carries the class's first counter document
    expect(seen.docs).toEqual([251, 250, 100]);
    expect(await (await stack.getClass('Note')).count()).toBe(600);
    expect(writeChunkOf(rawDb(stack) as unknown as Database)).toBe(STORAGE_WRITE_CHUNK);
    // by PouchDB's adapter name (db.adapter): pouchdb-adapter-indexeddb, pouchdb-adapter-idb, leveldb
    const named = (adapter: string) => writeChunkOf({ adapter } as unknown as Database);
    expect([named('indexeddb'), named('idb'), named('leveldb'), named('')]).toEqual([INDEXEDDB_WRITE_CHUNK, STORAGE_WRITE_CHUNK, STORAGE_WRITE_CHUNK, STORAGE_WRITE_CHUNK]);
    expect(INDEXEDDB_WRITE_CHUNK).toBe(10_000);
    await stack.close();
  });
});
