import PouchDB from 'pouchdb-core';
import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../index.js';
import type { Database } from '../../storage/database.js';
import { readStored } from '../../storage/direct-get.js';
import { documentCaches } from '../../storage/document-caches.js';
import type { VerifiedDocumentCache } from '../../storage/document-cache.js';
import type { DocumentCacheOptions } from '../../storage/options.js';
import { rawDb, tempDir, track, uniqueName } from '../helpers/stack.js';

/**
 * storage/document-cache.ts answers reads by id of Node's leveldb and memory stores from the
 * documents this store object wrote or read, when the store's revision tree says that revision
 * still wins. Whatever wrote the store — this object, another object on the same store, a
 * replicated revision, a deletion — a read answers what the store holds, as the adapter's own
 * read would, in a fresh object.
 */

/** Counts the store's two reads: the whole document (`_get`) and the revision tree only. */
function countReads(db: Database): { documents: number; trees: number } {
  const seen = { documents: 0, trees: 0 };
  const pouch = db as unknown as Record<'_get' | '_getRevisionTree', (...args: unknown[]) => unknown>;
  const get = pouch._get.bind(db);
  const tree = pouch._getRevisionTree.bind(db);
  pouch._get = (...args) => (seen.documents++, get(...args));
  pouch._getRevisionTree = (...args) => (seen.trees++, tree(...args));
  return seen;
}

const cacheOf = (db: Database) => documentCaches.get(db) as VerifiedDocumentCache | undefined;
const storedText = async (db: Database, id: string) => JSON.stringify(await db.get(id));

for (const adapter of ['memory', 'leveldb'] as const) {
  describe(`document cache (${adapter})`, () => {
    async function openStore(documentCache?: DocumentCacheOptions | false): Promise<Database> {
      const dataDir = adapter === 'leveldb' ? await tempDir() : undefined;
      return rawDb(track(await createStack({ name: uniqueName('cache'), adapter, dataDir, plugins: [], documentCache })));
    }

    it('answers a written document from the cache with one revision-tree read, exactly as the store answers it', async () => {
      const db = await openStore();
      await db.bulkDocs([
        { _id: 'a', n: 1, nested: { list: [1, 'two', null], when: '2026-11-27' }, text: 'é∑' },
        { _id: 'b', n: 2 },
      ]);
      const reads = countReads(db);
      const first = await readStored(db, 'a');
      expect(reads).toEqual({ documents: 0, trees: 1 });
      expect(JSON.stringify(first)).toBe(await storedText(db, 'a'));
      // a fresh object each time: changing one answer changes neither the store nor the next
      (first as unknown as { nested: { list: unknown[] } }).nested.list.push('changed');
      expect(JSON.stringify(await readStored(db, 'a'))).toBe(await storedText(db, 'a'));
      expect(reads.trees).toBe(2);
    });

    it('a document read twice from the store is answered from the cache from then on', async () => {
      const db = await openStore();
      await db.put({ _id: 'r', n: 1 });
      cacheOf(db)!.clear();
      const reads = countReads(db);
      for (let i = 0; i < 4; i++) expect(await readStored(db, 'r')).toMatchObject({ _id: 'r', n: 1 });
      // read once: not kept (a copy per cold read costs more than most documents read once win back)
      expect(reads).toEqual({ documents: 2, trees: 2 });
      expect(cacheOf(db)!.size.documents).toBe(1);
    });

    it('a document written alone is kept at its second read; a write of one it holds refreshes its entry', async () => {
      const db = await openStore();
      const { rev } = await db.put({ _id: 's', n: 1 });
      expect(cacheOf(db)!.size.documents).toBe(0);
      const reads = countReads(db);
      for (let i = 0; i < 3; i++) expect(await readStored(db, 's')).toMatchObject({ n: 1 });
      expect(reads).toEqual({ documents: 2, trees: 1 });
      await db.put({ _id: 's', _rev: rev, n: 2 });
      expect(await readStored(db, 's')).toMatchObject({ n: 2 });
      expect(reads).toEqual({ documents: 2, trees: 2 }); // the new version, from the refreshed entry
      expect(JSON.stringify(await readStored(db, 's'))).toBe(await storedText(db, 's'));
      await db.remove('s', (await db.get('s'))._rev);
      expect(await readStored(db, 's')).toBeNull();
      expect(cacheOf(db)!.size.documents).toBe(0);
    });

    it('answers what the store holds after a write by another PouchDB object on the same store', async () => {
      const db = await openStore();
      const [{ rev }] = (await db.bulkDocs([{ _id: 'x', n: 1 }, { _id: 'x2' }])) as { rev: string }[];
      expect(await readStored(db, 'x')).toMatchObject({ n: 1 });
      expect(cacheOf(db)!.size.documents).toBe(2);
      // a second object on the same store (PouchDB shares it by name): its writes skip this object's cache
      const other = new PouchDB(db.name, { adapter: (db as unknown as { adapter: string }).adapter });
      await other.put({ _id: 'x', _rev: rev, n: 2 });
      const reads = countReads(db);
      expect(await readStored(db, 'x')).toMatchObject({ n: 2 });
      expect(reads.documents).toBe(1); // the cached revision no longer wins: read from the store
      expect(JSON.stringify(await readStored(db, 'x'))).toBe(await storedText(db, 'x'));
    });

    it('a replicated revision that wins, a replicated revision naming one the store holds, a deletion', async () => {
      const db = await openStore();
      const [first] = (await db.bulkDocs([{ _id: 'c', side: 'local' }, { _id: 'c2' }])) as { rev: string }[];
      expect(await readStored(db, 'c')).toMatchObject({ side: 'local' });
      expect(cacheOf(db)!.size.documents).toBe(2);
      // a conflicting branch from a peer, longer: it wins
      await db.bulkDocs([{ _id: 'c', _rev: '2-ffff', _revisions: { start: 2, ids: ['ffff', 'eeee'] }, side: 'peer' }], { new_edits: false });
      expect(await readStored(db, 'c')).toMatchObject({ _rev: '2-ffff', side: 'peer' });
      // a peer sending the stored winner's revision with another body: the store keeps its own
      await db.bulkDocs([{ _id: 'c', _rev: '2-ffff', _revisions: { start: 2, ids: ['ffff', 'eeee'] }, side: 'forged' }], { new_edits: false });
      expect(await readStored(db, 'c')).toMatchObject({ side: 'peer' });
      expect(JSON.stringify(await readStored(db, 'c'))).toBe(await storedText(db, 'c'));
      const winner = await db.get('c');
      await db.remove('c', winner._rev);
      // the local branch wins again once the peer's is deleted: its body comes back
      expect(await readStored(db, 'c')).toMatchObject({ _rev: first.rev, side: 'local' });
      await db.remove('c', first.rev);
      expect(await readStored(db, 'c')).toBeNull();
    });

    it('a read asked while a write is in flight waits for it, as the adapter queues it', async () => {
      const db = await openStore();
      const [{ rev }] = (await db.bulkDocs([{ _id: 'w', n: 1 }, { _id: 'w2' }])) as { rev: string }[];
      expect(await readStored(db, 'w')).toMatchObject({ n: 1 });
      expect(cacheOf(db)!.size.documents).toBe(2);
      let readDuringWrite: Promise<unknown> | undefined;
      const pouch = db as unknown as { _bulkDocs: (...args: unknown[]) => void };
      const cached = pouch._bulkDocs;
      // ask the read right after the adapter has the write (the engine's reads run in any order with its writes)
      pouch._bulkDocs = (...args: unknown[]) => {
        cached(...args);
        readDuringWrite = readStored(db, 'w');
      };
      await db.put({ _id: 'w', _rev: rev, n: 2 });
      expect(await readDuringWrite).toMatchObject({ n: 2 });
    });

    it('keeps no document with attachments; answers it with stubs as the store does', async () => {
      const db = await openStore();
      cacheOf(db)!.clear();
      await db.put({ _id: 'f', n: 1, _attachments: { 'a.txt': { content_type: 'text/plain', data: Buffer.from('hi').toString('base64') } } } as never);
      const reads = countReads(db);
      const doc = (await readStored(db, 'f')) as { _attachments: Record<string, { stub?: boolean }> };
      expect(doc._attachments['a.txt'].stub).toBe(true);
      await readStored(db, 'f');
      expect(reads).toEqual({ documents: 2, trees: 0 });
      expect(cacheOf(db)!.size.documents).toBe(0);
    });

    it('stays within maxDocuments and maxBytes, the least recently used going first', async () => {
      const db = await openStore({ maxDocuments: 2, maxBytes: 8_000 });
      await db.bulkDocs([{ _id: 'd1' }, { _id: 'd2' }]);
      await readStored(db, 'd1'); // d1 used after d2
      await db.put({ _id: 'd3' });
      expect(cacheOf(db)!.size.documents).toBe(2); // one document written alone is not kept…
      await readStored(db, 'd3');
      await readStored(db, 'd3'); // …until its second read
      expect(cacheOf(db)!.size.documents).toBe(2);
      const reads = countReads(db);
      await readStored(db, 'd1');
      await readStored(db, 'd3');
      expect(reads.documents).toBe(0);
      await readStored(db, 'd2'); // the one evicted
      expect(reads.documents).toBe(1);
      // a document over an eighth of maxBytes is not kept, written in a batch or read again and again
      await db.bulkDocs([{ _id: 'big', text: 'x'.repeat(2_000) }, { _id: 'big2', text: 'y'.repeat(2_000) }]);
      for (let i = 0; i < 3; i++) expect(await readStored(db, 'big')).toMatchObject({ text: 'x'.repeat(2_000) });
      expect(reads.documents).toBe(4);
      expect(cacheOf(db)!.size.bytes).toBeLessThanOrEqual(8_000);
    });

    it('documentCache: false opens the store without one', async () => {
      const db = await openStore(false);
      expect(cacheOf(db)).toBeUndefined();
      await db.put({ _id: 'p', n: 1 });
      const reads = countReads(db);
      expect(await readStored(db, 'p')).toMatchObject({ n: 1 });
      expect(reads.documents).toBe(1);
    });
  });
}

describe('document cache options', () => {
  it('refuses bounds that are not whole numbers ≥ 0 before opening; a bound of 0 keeps none', async () => {
    for (const documentCache of [{ maxDocuments: -1 }, { maxBytes: 1.5 }, { maxDocuments: '10' }, 'yes', null, true]) {
      await expect(createStack({ name: uniqueName('cache-bad'), adapter: 'memory', plugins: [], documentCache } as never)).rejects.toMatchObject({
        code: 'DS_STACK_OPTIONS_INVALID',
        path: 'documentCache',
      });
    }
    const stack = track(await createStack({ name: uniqueName('cache-none'), adapter: 'memory', plugins: [], documentCache: { maxBytes: 0 } }));
    expect(cacheOf(rawDb(stack))).toBeUndefined();
  });

  it('a bound given as undefined keeps its default, as a bound left out does', async () => {
    const stack = track(await createStack({ name: uniqueName('cache-undefined'), adapter: 'memory', plugins: [], documentCache: { maxDocuments: undefined, maxBytes: 4096 } }));
    expect(cacheOf(rawDb(stack))?.limits).toEqual({ maxDocuments: 20_000, maxBytes: 4096 });
    const other = track(await createStack({ name: uniqueName('cache-undefined'), adapter: 'memory', plugins: [], documentCache: { maxBytes: undefined } }));
    expect(cacheOf(rawDb(other))?.limits).toEqual({ maxDocuments: 20_000, maxBytes: 8 * 1024 * 1024 });
  });
});

describe('document cache through the engine', () => {
  it('a primary-key lookup after createDocs and updateDoc answers the stored document, from the cache', async () => {
    const stack = track(await createStack({ name: uniqueName('cache-engine'), adapter: 'memory' }));
    const items = await Class.create(stack, 'Item', 'class', 'items', { code: { type: 'string', primaryKey: true }, n: { type: 'integer' } });
    // a batch's documents are kept as written; a serial update refreshes the entry it holds
    const [created] = await stack.createDocs([
      { '~class': 'Item', code: 'A-1', n: 1 },
      { '~class': 'Item', code: 'A-2', n: 1 },
    ]);
    const db = rawDb(stack);
    const reads = countReads(db);
    expect(await items.getByPrimaryKeys({ code: 'A-1' })).toMatchObject({ _id: created._id, code: 'A-1', n: 1 });
    expect(reads.documents).toBe(0);
    await stack.updateDoc(created._id, { n: 2 });
    expect(await items.getByPrimaryKeys({ code: 'A-1' })).toMatchObject({ code: 'A-1', n: 2 });
    const answered = JSON.stringify(await readStored(db, created._id));
    expect(reads.documents).toBe(0);
    expect(answered).toBe(await storedText(db, created._id));
  });
});
