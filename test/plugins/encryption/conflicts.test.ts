/**
 * Conflicts of an encrypted attribute (issue #28, the API part): a device holding the scope's key
 * lists both bodies decrypted and resolves with a merged value that is stored sealed; a device
 * without the key lists the same conflict with sealed markers, as any read of it.
 */
import PouchDB from 'pouchdb-core';
import { describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../../index.js';
import { memoryStack, rawDb } from '../../helpers/stack.js';
import { PASSPHRASE } from './setup.js';

/** PouchDB's replicator from a's store into b through b's ingest (as stack.sync pulls). */
async function replicate(a: ClientStack, b: ClientStack): Promise<void> {
  const target = b.storage.replication.target({
    bulkDocs: async (docs, newEdits) => {
      const results = await b.ingest(docs, { newEdits });
      return results.map((r) => (r.ok ? { ok: true as const, id: r.id, rev: r.rev } : { id: r.id, error: true, name: 'forbidden', reason: r.reason }));
    },
  });
  await (PouchDB as unknown as { replicate(a: unknown, b: unknown): Promise<unknown> }).replicate(rawDb(a), target);
}

describe('conflicts of an encrypted attribute', () => {
  it('are listed decrypted where the key is, sealed where it is not, and resolved into a sealed value', async () => {
    const a = await memoryStack();
    await a.unlock(PASSPHRASE);
    await Class.create(a, 'Visit', 'class', '', { site: { type: 'string' }, notes: { type: 'string', encrypted: true } });
    const visit = await a.createDoc({ '~class': 'Visit', site: 'Lyon', notes: 'first' });
    const b = await memoryStack();
    const keyless = await memoryStack();
    await replicate(a, b);
    await b.unlock(PASSPHRASE); // the same user's keyring arrived with the rest
    await a.updateDoc(visit._id, { notes: 'from a' });
    await b.updateDoc(visit._id, { notes: 'from b' });
    await replicate(b, a);
    await replicate(a, keyless);

    const [conflict] = await a.conflicts('Visit');
    expect([conflict.winner.notes, conflict.losers[0].notes].sort()).toEqual(['from a', 'from b']);
    const [sealed] = await keyless.conflicts();
    expect(sealed.id).toBe(visit._id);
    expect([sealed.winner.notes, sealed.losers[0].notes]).toEqual([
      { '~sealed': true, scope: 'default' },
      { '~sealed': true, scope: 'default' },
    ]);

    const resolved = await a.resolveConflict(visit._id, { site: 'Lyon', notes: 'from a and b' });
    expect(resolved.notes).toBe('from a and b');
    expect((await a.getDocument(visit._id))?.notes).toBe('from a and b');
    const stored = await a.storage.replication.get(visit._id, { conflicts: true });
    expect(stored._conflicts).toBeUndefined();
    expect(JSON.stringify(stored)).not.toContain('from a and b'); // sealed in storage
    await replicate(a, keyless);
    expect(await keyless.conflicts()).toEqual([]);
  });
});
