/**
 * Conflicts of an encrypted attribute (issue #28, the API part): a device holding the scope's key
 * lists both bodies decrypted and resolves with a merged value that is stored sealed; a device
 * without the key lists the same conflict with sealed markers, as any read of it.
 */
import { describe, expect, it } from 'vitest';
import { Class, type ClientStack, type ConflictFailedEvent, type Doc } from '../../../index.js';
import { memoryStack } from '../../helpers/stack.js';
import { replicateIngest as replicate } from '../../helpers/replicate.js';
import { PASSPHRASE } from './setup.js';


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

  it("'merge' of an encrypted attribute happens where the key is: a keyless node leaves it listed (DS_CONFLICT_SEALED), two keyed devices merge it into one sealed revision", async () => {
    const a = await memoryStack();
    await a.unlock(PASSPHRASE);
    await Class.create(a, 'Visit', 'class', '', { site: { type: 'string' }, notes: { type: 'string', encrypted: true } }, { conflicts: 'merge' });
    const visit = await a.createDoc({ '~class': 'Visit', site: 'Lyon', notes: 'first' });
    const b = await memoryStack();
    const node = await memoryStack(); // never unlocked: holds no key, as a server node
    await replicate(a, b);
    await replicate(a, node);
    await b.unlock(PASSPHRASE);
    await a.updateDoc(visit._id, { notes: 'notes from a' });
    await b.updateDoc(visit._id, { site: 'Paris' });

    const failed: ConflictFailedEvent[] = [];
    node.on('conflict:failed', (e: ConflictFailedEvent) => failed.push(e));
    await replicate(a, node);
    await replicate(b, node);
    expect(failed).toEqual([expect.objectContaining({ id: visit._id, policy: 'merge', code: 'DS_CONFLICT_SEALED' })]);
    expect(await node.conflicts()).toHaveLength(1);

    // both devices receive the other's version at once and merge it on their own
    const leaves = async (s: ClientStack) => (await s.storage.replication.openRevs(visit._id, 'all', { revs: true })).flatMap((l) => ('ok' in l ? [l.ok as Doc] : []));
    const [fromA, fromB] = [await leaves(a), await leaves(b)];
    await Promise.all([a.ingest(fromB), b.ingest(fromA)]);
    for (const s of [a, b]) expect(await s.getDocument(visit._id)).toEqual(expect.objectContaining({ site: 'Paris', notes: 'notes from a' }));
    const live = async (s: ClientStack) => (await leaves(s)).filter((d) => !(d as { _deleted?: boolean })._deleted).map((d) => d._rev);
    expect(await live(a)).toEqual(await live(b)); // one revision: the sealed value reused, not sealed anew
    expect(JSON.stringify(await a.storage.replication.get(visit._id))).not.toContain('notes from a');

    await replicate(a, node);
    expect(await node.conflicts()).toEqual([]);
    expect(await live(node)).toEqual(await live(a));
  });
});
