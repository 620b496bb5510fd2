import { describe, expect, it, vi } from 'vitest';
import { Class, createStack, type ClientStack } from '../../index.js';
import { PERSIST_EVERY } from '../../engine/indexes/class-names.js';
import { kernelStack, rawDb, tempDir, track, uniqueName, userClasses } from '../helpers/stack.js';

/**
 * The class-name index (engine/indexes/class-names.ts) follows the pipeline's writes without
 * reading them back, and reads from the changes feed only what it could not see written: these
 * tests count the changes it read (`classNames.changesRead`), not the time.
 */

const items = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ '~class': 'Item', n: from + i }));

async function withItems(stack: ClientStack): Promise<void> {
  await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
}

describe('the class-name index and the pipeline', () => {
  it('opens a store with many documents written after the last class change without reading them', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('names');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    await withItems(first);
    for (let call = 0; call < 3; call++) await first.createDocs(items(600, call * 600));
    await first.createDoc({ '~class': 'Item', n: -1 }); // a small write last: its checkpoint is stored at close
    await first.close();
    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] }));
    expect(await userClasses(second)).toEqual(['Item', 'class']);
    expect(second.classNames.changesRead).toBe(0);
    expect(await second.countDocuments('Item')).toBe(1801);
  });

  it('after a stop without close (a crash), reads back only the writes since the last checkpoint (fewer than PERSIST_EVERY)', async () => {
    const name = uniqueName('names');
    const writer = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    await withItems(writer);
    await writer.createDocs(items(PERSIST_EVERY + 500)); // PERSIST_EVERY documents or more: its checkpoint is stored when it ends
    for (let i = 0; i < 5; i++) await writer.createDoc({ '~class': 'Item', n: 2000 + i }); // counted, not stored: no storage call of their own
    // a second stack on the store sees only what is stored, as an open after a crash would
    const reader = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    expect(await userClasses(reader)).toEqual(['Item', 'class']);
    expect(reader.classNames.changesRead).toBe(5);
  });

  it('sees a class another stack on the store wrote, reading it with the own writes since the last reading', async () => {
    const name = uniqueName('names');
    const mine = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    const theirs = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    await withItems(mine);
    await mine.createDocs(items(300));
    await mine.listClasses();
    const before = mine.classNames.changesRead;
    await Class.create(theirs, 'Elsewhere', 'class');
    await mine.createDocs(items(300, 300)); // no sequence reading of its own: the foreign change is not seen yet
    expect(await userClasses(mine)).toEqual(['Elsewhere', 'Item', 'class']);
    expect(mine.classNames.changesRead - before).toBe(301); // the sequence moved by one more than the own writes: all read
    await mine.createDocs(items(300, 600));
    expect(await userClasses(mine)).toEqual(['Elsewhere', 'Item', 'class']);
    expect(mine.classNames.changesRead - before).toBe(301); // only own writes since: nothing read
  });

  it('sees a class document that arrived by replication, and a large replicated batch is read once', async () => {
    const peer = await kernelStack();
    const here = await kernelStack();
    await withItems(peer);
    await withItems(here);
    await Class.create(peer, 'Remote', 'class', '', { n: { type: 'integer' } });
    const remote = await peer.storage.replication.get('Remote', { revs: true });
    await peer.createDocs(Array.from({ length: 250 }, (_, i) => ({ '~class': 'Remote', n: i })));
    const pulled = await peer.storage.replication.allDocs({ startkey: 'Remote-', endkey: 'Remote-\uffff', include_docs: true });
    expect((await here.ingest([remote, ...pulled.rows.map((row) => ('doc' in row ? row.doc : null))])).every((r) => r.ok)).toBe(true);
    await here.createDocs(items(10)); // a large foreign gap: left to a listing, not read by this write
    expect(await userClasses(here)).toEqual(['Item', 'Remote', 'class']);
    expect(here.classNames.changesRead).toBeGreaterThanOrEqual(251);
    await here.createDocs(items(400, 10)); // reads what the listing had not reached (the 10 at most)
    const read = here.classNames.changesRead;
    expect(read).toBeLessThan(251 + 10 + 5); // each change read once
    await here.createDocs(items(400, 410));
    expect(await userClasses(here)).toEqual(['Item', 'Remote', 'class']);
    expect(here.classNames.changesRead).toBe(read); // the chain holds again: nothing of its own read back
  });

  it('does not take a write as its own when another writer stored something between its sequence readings', async () => {
    const stack = await kernelStack();
    await withItems(stack);
    await stack.createDocs(items(5));
    await stack.listClasses();
    const raw = rawDb(stack);
    const bulkDocs = raw.bulkDocs.bind(raw);
    // a writer of another process slips a class document in just before this write's storage call
    vi.spyOn(raw, 'bulkDocs').mockImplementationOnce(async (docs) => {
      await raw.put({ _id: 'Sneaky', '~class': 'class', name: 'Sneaky', schema: {}, active: true });
      return bulkDocs(docs);
    });
    await stack.createDocs(items(5, 5));
    vi.restoreAllMocks();
    expect(await userClasses(stack)).toEqual(['Item', 'Sneaky', 'class']);
  });

  it('drops a class made inactive through the pipeline without reading it back', async () => {
    const stack = await kernelStack();
    await withItems(stack);
    await Class.create(stack, 'Gone', 'class');
    await stack.createDocs(items(5));
    await stack.listClasses();
    const before = stack.classNames.changesRead;
    await stack.deleteDocument('Gone');
    expect(await userClasses(stack)).toEqual(['Item', 'class']);
    expect(stack.classNames.changesRead).toBe(before);
  });
});
