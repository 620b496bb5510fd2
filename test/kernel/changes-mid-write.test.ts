import { describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { writeLockFor } from '../../storage/write-lock.js';
import { kernelStack, rawDb, tempDir } from '../helpers/stack.js';

/**
 * PouchDB's leveldb-core reads a `_changes` page from an iterator snapshot but each row's
 * document live: a row whose document a write updates during the read is skipped as superseded
 * while its new row lies past the snapshot, so the page can answer "caught up" without the
 * document — a one-shot pull then ends missing the update (seen as a server/replication test
 * failing about one run in twenty under load). storage.replication.changes reads inside the
 * store's write lock.
 */
describe('a one-shot _changes read (storage.replication.changes) and writes', () => {
  it('waits for a write section in progress and lists what it wrote', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
    const db = rawDb(stack);
    let release!: () => void;
    const held = writeLockFor(db)(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      let answered = false;
      const reading = stack.storage.replication.changes({ since: 0 }).then((page) => ((answered = true), page));
      await db.put({ _id: 'Item-late', '~class': 'Item', n: 1 }); // written by the section holding the lock
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(answered).toBe(false);
      release();
      expect((await reading).results.map((r) => r.id)).toContain('Item-late');
    } finally {
      release();
      await held;
    }
  });

  for (const adapter of ['memory', 'leveldb'] as const) {
    it(`lists a document a peer's conflicting revision is being stored for: the node's read and a push's (${adapter})`, async () => {
      const stack = await kernelStack(adapter === 'leveldb' ? { adapter, dataDir: await tempDir() } : {});
      try {
        await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
        // what the sync plugin hands PouchDB's replicator: its push reads this store through it
        const target = stack.storage.replication.target({ bulkDocs: async () => [] }) as unknown as PouchDB.Database;
        const reads = {
          node: (since: number) => stack.storage.replication.changes({ since, style: 'all_docs' }),
          push: (since: number) => {
            const seen: string[] = [];
            const call = target.changes({ since, style: 'all_docs', return_docs: true }).on('change', (change) => void seen.push(change.id));
            return Promise.resolve(call).then((page) => (expect(seen).toEqual(page.results.map((r) => r.id)), page));
          },
        };
        for (const [reader, read] of Object.entries(reads)) {
          const created = await stack.createDoc({ '~class': 'Item', n: 0 });
          const edited = await stack.updateDoc(created._id, { n: 1 });
          const row = (await stack.storage.replication.changes({ since: 0 })).results.find((r) => r.id === created._id)!;
          // a peer's second revision beside this store's: what a pull racing a push meets
          const hash = 'f'.repeat(32);
          const conflict = { ...edited, n: 2, _rev: `2-${hash}`, _revisions: { start: 2, ids: [hash, created._rev!.slice(2)] } };
          // the read is asked for the moment the storage write starts (the order a failing run logged)
          const db = rawDb(stack);
          const bulkDocs = db.bulkDocs;
          let reading: Promise<PouchDB.Core.ChangesResponse<{}>> | undefined;
          db.bulkDocs = ((...args: Parameters<typeof bulkDocs>) => {
            const writing = bulkDocs.apply(db, args);
            reading ??= read(Number(row.seq) - 1);
            return writing;
          }) as typeof bulkDocs;
          try {
            expect(await stack.ingest([conflict])).toMatchObject([{ ok: true }]);
          } finally {
            db.bulkDocs = bulkDocs;
          }
          const listed = (await reading!).results.find((r) => r.id === created._id);
          expect({ reader, revs: listed?.changes.map((c) => c.rev).sort() }).toEqual({ reader, revs: [edited._rev, conflict._rev].sort() });
        }
      } finally {
        await stack.close();
      }
    });
  }

  it('a read with no limit takes the lock a page at a time: a write waiting for it goes in between, and the read lists it', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
    await stack.createDocs(Array.from({ length: 1200 }, (_, n) => ({ '~class': 'Item', n })));
    const order: string[] = [];
    const reading = stack.storage.replication.changes({ since: 0 }).then((page) => (order.push('read'), page));
    const writing = stack.createDoc({ '~class': 'Item', n: -1 }).then((doc) => (order.push('write'), doc));
    const [page, written] = await Promise.all([reading, writing]);
    expect(order).toEqual(['write', 'read']);
    const ids = page.results.map((r) => r.id);
    expect(ids.filter((id) => id.startsWith('Item-'))).toHaveLength(1201);
    expect(ids).toContain(written._id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(page.last_seq).toBe(page.results.at(-1)!.seq);
    // a limit is kept across pages
    expect((await stack.storage.replication.changes({ since: 0, limit: 700 })).results).toHaveLength(700);
  });

  it("a push's read cancelled while it waits for the lock answers cancelled and reads nothing", async () => {
    const stack = await kernelStack();
    const db = rawDb(stack);
    const target = stack.storage.replication.target({ bulkDocs: async () => [] }) as unknown as PouchDB.Database;
    let release!: () => void;
    const held = writeLockFor(db)(() => new Promise<void>((resolve) => (release = resolve)));
    const seen: unknown[] = [];
    const call = target.changes({ since: 0 }).on('change', (change) => void seen.push(change));
    call.cancel();
    release();
    await held;
    expect(await call).toEqual({ status: 'cancelled' });
    expect(seen).toEqual([]);
    // a live feed is PouchDB's own (it reads again on every write it is told of)
    const live = target.changes({ since: 0, live: true });
    expect(live.constructor.name).toBe('Changes');
    live.cancel();
  });
});
