/**
 * A transaction replicated to another docstack peer is never seen partly there: its members stay
 * hidden from reads until all have arrived, across a reopen too. Stock PouchDB sees plain documents.
 */
import PouchDB from 'pouchdb-core';
import { describe, expect, it } from 'vitest';
import { Class, createStack, type ClientStack } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { memoryStack, rawDb, track, uniqueName } from '../../helpers/stack.js';

const SIZE = 50;

async function source() {
  const a = await memoryStack();
  await Class.create(a, 'Item', 'class', '', { n: { type: 'integer', primaryKey: true } });
  const b = await memoryStack();
  await replicate(a, b, 100); // the class first
  await a.transaction(async (tx) => void (await tx.createDocs(Array.from({ length: SIZE }, (_, n) => ({ '~class': 'Item', n })))));
  return { a, b };
}

/** PouchDB's replicator from a's store into b through b's ingest, calling `seen` after every batch. */
async function replicate(a: ClientStack, b: ClientStack, batchSize: number, seen?: () => Promise<void>) {
  const target = b.storage.replication.target({
    bulkDocs: async (docs, newEdits) => {
      const results = await b.ingest(docs, { newEdits });
      await seen?.();
      return results.map((r) => (r.ok ? { ok: true as const, id: r.id, rev: r.rev } : { id: r.id, error: true, name: 'forbidden', reason: r.reason }));
    },
  });
  const Pouch = PouchDB as unknown as { replicate(a: unknown, b: unknown, o: unknown): Promise<{ docs_written: number }> };
  return Pouch.replicate(rawDb(a), target, { batch_size: batchSize, batches_limit: 1 });
}

async function visible(b: ClientStack): Promise<number> {
  return (await b.findDocuments('Item')).length;
}

describe('a transaction across replication', () => {
  it('is shown on the receiving stack only once all its members arrived (batches of 10)', async () => {
    const { a, b } = await source();
    const ids = (await a.findDocuments('Item')).map((d) => d._id);
    const counts: number[] = [];
    const result = await replicate(a, b, 10, async () => {
      counts.push(await visible(b));
      const one = await Promise.all(ids.map((id) => b.getDocument(id)));
      expect(new Set(one.map((d) => d === null)).size).toBe(1); // all or none, by id too
    });
    expect(result.docs_written).toBe(SIZE);
    expect(counts.length).toBeGreaterThanOrEqual(5);
    expect(counts.slice(0, -1).every((c) => c === 0)).toBe(true);
    expect(counts.at(-1)).toBe(SIZE);
    await expect((await b.getClass('Item')).getByPrimaryKeys({ n: 7 })).resolves.toMatchObject({ n: 7 });
  });

  it('keeps a partly arrived transaction hidden across a reopen, then shows it', async () => {
    const { a } = await source();
    // the members as a peer sends them, ingested by hand in two parts with a reopen between
    const docs = (await a.storage.replication.allDocs({ include_docs: true, startkey: 'Item-', endkey: 'Item-\uffff' })).rows.flatMap((r) => ('doc' in r && r.doc ? [r.doc] : []));
    const name2 = uniqueName('tx-peer');
    let b = track(await createStack({ name: name2, adapter: 'memory', plugins: browser }));
    await Class.create(b, 'Item', 'class', '', { n: { type: 'integer', primaryKey: true } });
    await b.ingest(docs.slice(0, 20), { newEdits: false });
    expect(await visible(b)).toBe(0);
    await b.close();
    b = track(await createStack({ name: name2, adapter: 'memory', plugins: browser }));
    expect(await visible(b)).toBe(0);
    await b.ingest(docs.slice(20), { newEdits: false });
    expect(await visible(b)).toBe(SIZE);
  });

  it('is a set of ordinary documents to stock PouchDB', async () => {
    const { a } = await source();
    const plain = new PouchDB<Record<string, unknown>>(uniqueName('plain'), { adapter: 'memory' });
    await (PouchDB as unknown as { replicate(a: unknown, b: unknown, o: unknown): Promise<unknown> }).replicate(rawDb(a), plain, { batch_size: 10 });
    const rows = (await plain.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff', include_docs: true })).rows;
    expect(rows).toHaveLength(SIZE);
    expect(rows[0].doc?.['~tx']).toMatchObject({ size: SIZE });
    await plain.destroy();
  });
});
