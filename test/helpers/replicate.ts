import PouchDB from 'pouchdb-core';
import type { ClientStack } from '../../index.js';
import { rawDb } from './stack.js';

/** PouchDB's replicator from a's store into b through b's ingest (as stack.sync pulls): every leaf, with its history. */
export async function replicateIngest(a: ClientStack, b: ClientStack): Promise<void> {
  const target = b.storage.replication.target({
    bulkDocs: async (docs, newEdits) => {
      const results = await b.ingest(docs, { newEdits });
      return results.map((r) => (r.ok ? { ok: true as const, id: r.id, rev: r.rev } : { id: r.id, error: true, name: 'forbidden', reason: r.reason }));
    },
  });
  await (PouchDB as unknown as { replicate(a: unknown, b: unknown): Promise<unknown> }).replicate(rawDb(a), target);
}
