import { afterEach, describe, expect, it } from 'vitest';
import { Class, createStack } from '../../index.js';
import { closeDatabase, openDatabase, type Database } from '../../storage/database.js';
import { allowDirectWrites, storeDocs } from '../../storage/direct-write.js';
import { rawDb, tempDir, track, uniqueName } from '../helpers/stack.js';

/**
 * storage/direct-write.ts stores documents through the adapter's `_bulkDocs` (no pouchdb-core
 * wrapper, no deep clone) when they hold only plain values: what it stores and answers must be
 * exactly what `db.bulkDocs` stores and answers — the same revisions (the adapters' revisions are
 * a digest of the document), the same documents read back, the same refusals — on the memory
 * and leveldb adapters, and anything it does not take goes through `db.bulkDocs` itself.
 */

type Calls = { direct: number; public: number; publicCalls: object[][] };

/**
 * Counts the store's `_bulkDocs` calls made directly and its public `bulkDocs` calls (the
 * instance's own members), the counting `bulkDocs` then noted as the store's own: a store whose
 * `bulkDocs` was replaced since it opened is otherwise always written through it.
 */
function countWrites(db: Database): Calls {
  const seen: Calls = { direct: 0, public: 0, publicCalls: [] };
  const pouch = db as unknown as Record<'_bulkDocs' | 'bulkDocs', (...args: unknown[]) => unknown>;
  const inner = pouch._bulkDocs;
  const outer = pouch.bulkDocs;
  let insidePublic = 0;
  pouch.bulkDocs = function (this: unknown, ...args: unknown[]) {
    seen.public++;
    seen.publicCalls.push(args[0] as object[]);
    insidePublic++;
    try {
      return outer.apply(this, args);
    } finally {
      insidePublic--;
    }
  };
  pouch._bulkDocs = function (this: unknown, ...args: unknown[]) {
    if (insidePublic === 0) seen.direct++;
    return inner.apply(this, args);
  };
  allowDirectWrites(db);
  return seen;
}

/** The stored document as the public `get` answers it (null when missing or deleted). */
async function stored(db: Database, id: string): Promise<unknown> {
  return db.get(id).catch((err: { status?: number }) => {
    if (err.status === 404) return null;
    throw err;
  });
}

const flat = () => [
  { _id: 'a', '~class': 'Item', code: 'A', price: 1.5, inStock: true, note: null },
  { _id: 'b', '~class': 'Item', code: 'B', skipped: undefined },
];

for (const adapter of ['memory', 'leveldb'] as const) {
  describe(`direct writes (${adapter})`, () => {
    async function openStack(plugins: never[] = []) {
      const dataDir = adapter === 'leveldb' ? await tempDir() : undefined;
      return track(await createStack({ name: uniqueName('dwrite'), adapter, dataDir, plugins }));
    }
    /** A store of the kernel's own opening (its document cache on), with no stack reading its changes. */
    async function openStore(): Promise<Database> {
      const db = await openDatabase({ name: uniqueName('dwrite-store'), adapter, dataDir: adapter === 'leveldb' ? await tempDir() : undefined });
      opened.push(db);
      return db;
    }
    const opened: Database[] = [];
    afterEach(async () => {
      for (const db of opened.splice(0)) await closeDatabase(db).catch(() => undefined);
    });

    it('stores flat documents directly, answering and storing what bulkDocs does; the inputs are left as they were', async () => {
      const [direct, viaPublic] = [await openStore(), await openStore()];
      const seen = countWrites(direct);
      const docs = flat();
      const results = await storeDocs(direct, docs);
      expect(seen).toMatchObject({ direct: 1, public: 0 });
      expect(results).toEqual(await viaPublic.bulkDocs(flat() as never[]));
      expect(results.map((r) => r.id)).toEqual(['a', 'b']);
      for (const id of ['a', 'b']) expect(await stored(direct, id), id).toEqual(await stored(viaPublic, id));
      // the adapter writes _rev and _rev_tree into what it is handed: a copy, never the caller's object
      expect(docs).toEqual(flat());
      expect(Object.keys(docs[0])).not.toContain('_rev_tree');
    });

    it('updates, deletes and conflicts answer as bulkDocs answers them', async () => {
      const [direct, viaPublic] = [await openStore(), await openStore()];
      const [first] = await storeDocs(direct, [{ _id: 'x', n: 1 }]);
      const [firstPublic] = await viaPublic.bulkDocs([{ _id: 'x', n: 1 }] as never[]);
      expect(first).toEqual(firstPublic);
      const seen = countWrites(direct);
      const update = [{ _id: 'x', _rev: first.rev, n: 2 }, { _id: 'x', _rev: first.rev, n: 3 }];
      const answers = await storeDocs(direct, update);
      expect(seen.direct).toBe(1);
      // the second names a revision the first replaced: a conflict, with its id
      expect(answers).toEqual(await viaPublic.bulkDocs(update as never[]));
      expect(answers[1]).toMatchObject({ id: 'x', status: 409 });
      expect(await stored(direct, 'x')).toEqual(await stored(viaPublic, 'x'));
      const taken = await storeDocs(direct, [{ _id: 'x', n: 9 }]);
      expect(taken).toEqual(await viaPublic.bulkDocs([{ _id: 'x', n: 9 }] as never[]));
      const deletion = [{ _id: 'x', _rev: answers[0].rev, _deleted: true }];
      expect(await storeDocs(direct, deletion)).toEqual(await viaPublic.bulkDocs(deletion as never[]));
      expect(await stored(direct, 'x')).toBeNull();
    });

    it('a document holding an object or an array goes through bulkDocs (deep-cloned at the call)', async () => {
      const db = await openStore();
      const seen = countWrites(db);
      const doc = { _id: 'n', tags: ['a'], address: { city: 'Lyon' } };
      const pending = storeDocs(db, [doc]);
      // changed after the call: the stored document is what was handed over
      doc.tags.push('b');
      doc.address.city = 'Nantes';
      await pending;
      expect(seen).toMatchObject({ direct: 0, public: 1 });
      expect(await stored(db, 'n')).toMatchObject({ tags: ['a'], address: { city: 'Lyon' } });
    });

    it('what PouchDB refuses is refused as bulkDocs refuses it: a bad revision, a reserved field', async () => {
      const db = await openStore();
      const seen = countWrites(db);
      await expect(storeDocs(db, [{ _id: 'r', _rev: 'not-a-revision' }])).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/rev/i) });
      await expect(storeDocs(db, [{ _id: 'f', _foo: 1 }])).rejects.toMatchObject({ message: expect.stringMatching(/_foo/) });
      expect(seen).toMatchObject({ direct: 0, public: 2 });
      expect(await stored(db, 'r')).toBeNull();
      expect(await stored(db, 'f')).toBeNull();
    });

    it('a store whose bulkDocs was wrapped since it opened is written through the wrapper', async () => {
      const db = await openStore();
      const pouch = db as unknown as { bulkDocs: (docs: object[]) => Promise<unknown> };
      const own = pouch.bulkDocs.bind(db);
      const wrapped: object[][] = [];
      pouch.bulkDocs = (docs) => (wrapped.push(docs), own(docs));
      const [result] = await storeDocs(db, [{ _id: 'w', n: 1 }]);
      expect(wrapped).toEqual([[{ _id: 'w', n: 1 }]]);
      expect(await stored(db, 'w')).toMatchObject({ _rev: result.rev, n: 1 });
    });

    it('a closed store is written through bulkDocs, which refuses', async () => {
      const db = await openStore();
      await closeDatabase(db);
      await expect(storeDocs(db, [{ _id: 'c', n: 1 }])).rejects.toThrow(/closed/);
    });

    it("the engine's creates, updates and deletes take the direct call and read back as stored", async () => {
      const stack = await openStack();
      await Class.create(stack, 'Item', 'class', 'items', { code: { type: 'string', primaryKey: true, mandatory: true }, qty: { type: 'integer' } });
      const seen = countWrites(rawDb(stack));
      const created = await stack.createDoc({ '~class': 'Item', code: 'A-1', qty: 1 });
      const many = await stack.createDocs([{ '~class': 'Item', code: 'A-2' }, { '~class': 'Item', code: 'A-3', qty: 3 }]);
      const updated = await stack.updateDoc(created._id, { qty: 2 });
      await stack.deleteDocument(many[0]._id);
      // the two creates (one call), the update, the deletion: direct; the first create of the
      // class carries the counter's first entry, which lists its pending writes (an array)
      expect(seen.direct).toBe(3);
      // through bulkDocs only a call carrying a nested value (the class counter's first entry lists
      // its pending writes) and the kernel's own bookkeeping (_local documents it writes itself)
      const nested = (doc: object) => Object.values(doc).some((value) => typeof value === 'object' && value !== null);
      const local = (doc: object) => String((doc as { _id?: unknown })._id).startsWith('_local/');
      for (const call of seen.publicCalls) expect(call.some(nested) || call.every(local), JSON.stringify(call)).toBe(true);
      expect(seen.publicCalls.flat().filter((doc) => !local(doc))).toEqual([expect.objectContaining({ _id: created._id, code: 'A-1', qty: 1 })]);
      expect(await stored(rawDb(stack), created._id)).toMatchObject({ _rev: updated._rev, code: 'A-1', qty: 2 });
      expect(await stack.getDocument(many[1]._id)).toMatchObject({ _rev: many[1]._rev, qty: 3 });
      expect(await stack.getDocument(many[0]._id)).toBeNull();
    });
  });
}
