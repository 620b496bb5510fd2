import PouchDB from 'pouchdb-core';
import replication from 'pouchdb-replication';
import { describe, expect, it, vi } from 'vitest';
import { Class, definePlugin, type ClientStack, type ReplicationWriteResult, type Storage } from '../../index.js';
import { KEYS } from '../../kit/index.js';
import { registerPouchPlugin } from '../../storage/pouch-plugins.js';
import { expectRefused, kernelStack, rawDb } from '../helpers/stack.js';

registerPouchPlugin(replication);

/** A kernel stack (memory adapter, no plugin) with `Item` documents Item-a … Item-e and one `Other`. */
async function withItems(): Promise<ClientStack> {
  const stack = await kernelStack();
  await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
  await Class.create(stack, 'Other', 'class');
  await stack.createDocs(['c', 'a', 'e', 'b', 'd'].map((k, i) => ({ '~class': 'Item', _id: `Item-${k}`, n: i })));
  await stack.createDoc({ '~class': 'Other', _id: 'Other-a' });
  return stack;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe('the storage facade (stack.storage)', () => {
  it('is the same object on the stack, in the setup context and in the container; the raw store is not on the stack', async () => {
    let seen: Storage | null = null;
    const probe = definePlugin({ name: 'probe', setup: ({ storage }) => void (seen = storage) });
    const stack = await kernelStack({ plugins: [probe] });
    expect(seen).toBe(stack.storage);
    expect(stack.container.resolve(KEYS.storage)).toBe(stack.storage);
    expect('db' in stack).toBe(false);
    expect(Object.values(KEYS)).not.toContain('db');
  });

  it('get: the stored document, null when missing or deleted', async () => {
    const stack = await withItems();
    expect(await stack.storage.get('Item-a')).toMatchObject({ _id: 'Item-a', '~class': 'Item', n: 1 });
    expect(await stack.storage.get('Item-zz')).toBeNull();
    await stack.deleteDocument('Item-b'); // a soft delete stays stored
    expect(await stack.storage.get('Item-b')).toMatchObject({ active: false });
    await stack.purgeDocuments(['Item-b']); // a real delete: a tombstone
    expect(await stack.storage.get('Item-b')).toBeNull();
  });

  it('getMany: in the order asked, null for missing and deleted ids', async () => {
    const stack = await withItems();
    await stack.purgeDocuments(['Item-c']);
    const docs = await stack.storage.getMany(['Item-e', 'nope', 'Item-c', 'Item-a']);
    expect(docs.map((d) => d?._id ?? null)).toEqual(['Item-e', null, null, 'Item-a']);
    expect(await stack.storage.getMany([])).toEqual([]);
  });

  it('range: by prefix, limit, skip, descending, a cursor, with or without documents', async () => {
    const { storage } = await withItems();
    expect(ids(await storage.range({ prefix: 'Item-' }))).toEqual(['Item-a', 'Item-b', 'Item-c', 'Item-d', 'Item-e']);
    expect(ids(await storage.range({ prefix: 'Item-', limit: 2 }))).toEqual(['Item-a', 'Item-b']);
    expect(ids(await storage.range({ prefix: 'Item-', limit: 2, skip: 1 }))).toEqual(['Item-b', 'Item-c']);
    expect(ids(await storage.range({ prefix: 'Item-', descending: true }))).toEqual(['Item-e', 'Item-d', 'Item-c', 'Item-b', 'Item-a']);
    expect(ids(await storage.range({ prefix: 'Item-', descending: true, limit: 2 }))).toEqual(['Item-e', 'Item-d']);
    // a cursor overrides the prefix's own bound: the next page after Item-d, downwards
    expect(ids(await storage.range({ prefix: 'Item-', descending: true, start: 'Item-d', skip: 1 }))).toEqual(['Item-c', 'Item-b', 'Item-a']);
    expect(ids(await storage.range({ start: 'Item-b', end: 'Item-c' }))).toEqual(['Item-b', 'Item-c']);
    const rows = await storage.range({ prefix: 'Other-' });
    expect(rows).toEqual([{ id: 'Other-a', rev: expect.stringMatching(/^1-/) }]);
    expect(rows[0]).not.toHaveProperty('doc');
    const withDocs = await storage.range({ prefix: 'Item-', includeDocs: true, limit: 1 });
    expect(withDocs[0].doc).toMatchObject({ _id: 'Item-a', n: 1 });
  });

  it('pages: the documents of a prefix, a page at a time', async () => {
    const { storage } = await withItems();
    const pages: string[][] = [];
    for await (const page of storage.pages('Item-', 2)) pages.push(page.map((d) => d._id));
    expect(pages).toEqual([['Item-a', 'Item-b'], ['Item-c', 'Item-d'], ['Item-e']]);
  });

  it('put / remove: engine documents round-trip; a write without the stored revision is a conflict', async () => {
    const { storage } = await kernelStack();
    const rev = await storage.put({ _id: '_local/~test/lock', owner: 'a' });
    expect(await storage.get('_local/~test/lock')).toMatchObject({ owner: 'a', _rev: rev });
    await expect(storage.put({ _id: '_local/~test/lock', owner: 'b' })).rejects.toMatchObject({ status: 409 });
    const next = await storage.put({ _id: '_local/~test/lock', _rev: rev, owner: 'b' });
    await storage.remove('_local/~test/lock', next);
    expect(await storage.get('_local/~test/lock')).toBeNull();
    // a replicated engine document (a relation: ~domain, no ~class) and a system-class document
    const relRev = await storage.put({ _id: '~rel-owns-1', '~domain': 'owns', active: true });
    expect(await storage.get('~rel-owns-1')).toMatchObject({ _rev: relRev, '~domain': 'owns' });
    await storage.put({ _id: '~Engine-1', '~class': '~Engine' });
    expect(await storage.get('~Engine-1')).not.toBeNull();
  });

  it('putMany: engine documents in one call, answered per document; a user class document refuses the whole call', async () => {
    const stack = await withItems();
    const rev = await stack.storage.put({ _id: '_local/~test/held', owner: 'a' });
    const answers = await stack.storage.putMany([
      { _id: '_local/~test/new', owner: 'n' },
      { _id: '_local/~test/held', owner: 'b' }, // without the stored revision: a conflict
      { _id: '_local/~test/held-2', owner: 'c' },
    ]);
    expect(answers).toMatchObject([{ rev: expect.any(String) }, { status: 409 }, { rev: expect.any(String) }]);
    expect(await stack.storage.get('_local/~test/held')).toMatchObject({ owner: 'a', _rev: rev });
    expect(await stack.storage.get('_local/~test/new')).toMatchObject({ owner: 'n' });
    await expectRefused(stack.storage.putMany([{ _id: '_local/~test/x', owner: 'x' }, { _id: 'Item-q', '~class': 'Item', n: 1 }]), 'DS_STORAGE_BYPASS');
    expect(await stack.storage.get('_local/~test/x')).toBeNull();
    expect(await stack.storage.putMany([])).toEqual([]);
  });

  it('put refuses a document of a user class (DS_STORAGE_BYPASS): those go through the pipeline', async () => {
    const stack = await withItems();
    const err = await expectRefused(stack.storage.put({ _id: 'Item-z', '~class': 'Item', n: 1 }), 'DS_STORAGE_BYPASS');
    expect(err.details).toMatchObject({ id: 'Item-z', className: 'Item' });
    await expectRefused(stack.storage.put({ _id: 'odd', '~class': 42 }), 'DS_STORAGE_BYPASS');
    const current = await stack.storage.get('Item-a');
    await expectRefused(stack.storage.put({ ...current!, n: 99 }), 'DS_STORAGE_BYPASS');
    expect(await stack.storage.get('Item-z')).toBeNull();
    expect((await stack.storage.get('Item-a'))?.n).toBe(1);
    await expectRefused(stack.storage.put({ _id: '' }), 'DS_DOC_INVALID');
  });

  it('info and changes: document count, update sequence, the feed in pages', async () => {
    const stack = await withItems();
    const before = await stack.storage.info();
    expect(before.docCount).toBe(1 + 2 + 6); // the class meta-class, two classes, six documents
    await stack.createDoc({ '~class': 'Item', n: 9 });
    const after = await stack.storage.info();
    expect(after.docCount).toBe(before.docCount + 1);
    expect(Number(after.updateSeq)).toBeGreaterThan(Number(before.updateSeq));
    const first = await stack.storage.changes({ since: 0, limit: 3 });
    expect(first.results).toHaveLength(3);
    const rest = await stack.storage.changes({ since: first.lastSeq });
    expect([...first.results, ...rest.results].map((c) => c.id)).toEqual(expect.arrayContaining(['Item-a', 'Other-a']));
    expect(rest.lastSeq).toBe(after.updateSeq);
  });
});

describe('storage.replication: the CouchDB protocol over the store', () => {
  it('target: the store for PouchDB\'s replicator, with its writes handed to bulkDocs (both request shapes)', async () => {
    const stack = await withItems();
    const written: { docs: unknown[]; newEdits: boolean }[] = [];
    const bulkDocs = vi.fn(async (docs: unknown[], newEdits: boolean): Promise<ReplicationWriteResult[]> => {
      written.push({ docs, newEdits });
      return docs.map((d) => ({ ok: true, id: (d as { _id: string })._id, rev: '1-x' }));
    });
    const target = stack.storage.replication.target({ bulkDocs }) as unknown as {
      bulkDocs(request: unknown, options?: unknown): Promise<unknown>;
      get(id: string): Promise<{ _id: string }>;
    };
    expect(await target.bulkDocs({ docs: [{ _id: 'x' }], new_edits: false })).toEqual([{ ok: true, id: 'x', rev: '1-x' }]);
    await target.bulkDocs([{ _id: 'y' }], { new_edits: false });
    await target.bulkDocs([{ _id: 'z' }]);
    expect(written).toEqual([
      { docs: [{ _id: 'x' }], newEdits: false },
      { docs: [{ _id: 'y' }], newEdits: false },
      { docs: [{ _id: 'z' }], newEdits: true },
    ]);
    expect((await target.get('Item-a'))._id).toBe('Item-a'); // reads are the store's
    expect(await stack.storage.get('x')).toBeNull(); // nothing reached the store behind bulkDocs' back
  });

  it('target: a real replication writes through the given bulkDocs (here stack.ingest)', async () => {
    const source = await withItems();
    const here = await kernelStack();
    const bulkDocs = vi.fn(async (docs: unknown[], newEdits: boolean): Promise<ReplicationWriteResult[]> => {
      const results = await here.ingest(docs, { origin: 'replication', newEdits });
      return results.map((r) => (r.ok ? { ok: true, id: r.id, rev: r.rev } : { id: r.id, error: true, name: 'forbidden', status: r.status, reason: r.reason, message: r.reason }));
    });
    const target = here.storage.replication.target({ bulkDocs });
    await (PouchDB as unknown as { replicate(a: unknown, b: unknown): Promise<unknown> }).replicate(rawDb(source), target);
    expect(bulkDocs).toHaveBeenCalled();
    expect(bulkDocs.mock.calls.every(([, newEdits]) => newEdits === false)).toBe(true);
    expect(ids(await here.storage.range({ prefix: 'Item-' }))).toEqual(ids(await source.storage.range({ prefix: 'Item-' })));
    expect(await here.listClasses()).toEqual(expect.arrayContaining(['Item', 'Other']));
  });

  it('revsDiff, bulkGet, get, openRevs, allDocs, changes: PouchDB\'s answers', async () => {
    const stack = await withItems();
    const { replication: r } = stack.storage;
    const rev = (await stack.storage.get('Item-a'))!._rev!;
    expect(await r.revsDiff({ 'Item-a': [rev, '9-zzz'] })).toEqual({ 'Item-a': { missing: ['9-zzz'] } });
    const bulk = await r.bulkGet({ docs: [{ id: 'Item-a', rev }], revs: true });
    expect(bulk.results[0].docs[0]).toMatchObject({ ok: { _id: 'Item-a', _rev: rev } });
    expect(await r.get('Item-a', { revs: true })).toMatchObject({ _rev: rev, _revisions: { start: 1 } });
    expect(await r.openRevs('Item-a', [rev, '1-missing'])).toEqual([{ ok: expect.objectContaining({ _rev: rev }) }, { missing: '1-missing' }]);
    const all = await r.allDocs({ keys: ['Item-a', 'nope'] });
    expect(all.rows.map((row) => ('error' in row ? row.error : row.id))).toEqual(['Item-a', 'not_found']);
    const changes = await r.changes({ since: 0, doc_ids: ['Item-a'] });
    expect(changes.results.map((c) => c.id)).toEqual(['Item-a']);
  });

  it('live: a feed of the changes after a sequence', async () => {
    const stack = await withItems();
    const { updateSeq } = await stack.storage.info();
    const feed = stack.storage.replication.live(updateSeq);
    const next = new Promise<string>((resolve) => feed.on('change', (c) => resolve(c.id)));
    const made = await stack.createDoc({ '~class': 'Item', n: 7 });
    expect(await next).toBe(made._id);
    feed.cancel();
  });

  it('checkpoints: getLocal / putLocal / removeLocal on _local/<id>', async () => {
    const { replication: r } = (await kernelStack()).storage;
    await expect(r.getLocal('cp')).rejects.toMatchObject({ status: 404 });
    const put = await r.putLocal('cp', { last_seq: 3 });
    expect(await r.getLocal('cp')).toMatchObject({ _id: '_local/cp', last_seq: 3, _rev: put.rev });
    await r.putLocal('cp', { _rev: put.rev, last_seq: 4 });
    await r.removeLocal('cp'); // the stored revision when none is given
    await expect(r.getLocal('cp')).rejects.toMatchObject({ status: 404 });
  });
});
