/**
 * Domains under replication (stack.ingest, the path of `_bulk_docs` and `stack.sync`): a domain
 * made as docs/domains.md shows is found by every peer, a relation waits for its domain and its
 * ends (never stored without them), a reference change arriving relation-first converges, and
 * concurrent owner changes on a 1:N target leave ONE active relation on every replica.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, type ClientStack } from '../../../index.js';
import { Domain } from '../../../plugins/domains/index.js';
import { memoryStack, rawDb } from '../../helpers/stack.js';

type Stack = Awaited<ReturnType<typeof memoryStack>>;

/** Every leaf revision of each document, as replication carries them. */
async function revisionsOf(from: ClientStack, ids: string[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const id of ids) {
    for (const leaf of await from.storage.replication.openRevs(id, 'all', { revs: true })) if ('ok' in leaf && leaf.ok) out.push(leaf.ok as Record<string, unknown>);
  }
  return out;
}

/** What `from` holds (in its changes feed's order: a document at its latest change), ingested by `to`. */
async function send(from: ClientStack, to: ClientStack, filter: (id: string) => boolean = () => true) {
  const feed = await from.storage.replication.changes({ since: 0 });
  const ids = feed.results.map((c) => c.id).filter((id) => !id.startsWith('_local/') && filter(id));
  return to.ingest(await revisionsOf(from, ids));
}

/** Two rounds each way, `first` sending first: the second round carries what the first made (deactivations). */
async function exchange(first: ClientStack, second: ClientStack) {
  for (let i = 0; i < 2; i++) {
    await send(first, second);
    await send(second, first);
  }
}

async function fleet(stack?: Stack) {
  const s = stack ?? (await memoryStack());
  await Class.create(s, 'Person', 'class', '', { name: { type: 'string' } });
  const car = await Class.create(s, 'Car', 'class', '', { plate: { type: 'string' } });
  const owns = await Domain.create(s, null, 'owns', 'domain', '1:N', 'Person', 'Car');
  await Attribute.create(car, 'owner', 'reference', '', { domain: 'owns' });
  return { stack: s, owns };
}

const active = async (stack: Stack) => (await (await stack.useDomain('owns')).getRelations()).map((r) => [r.sourceId, r.targetId]);

describe('domains across replicas', () => {
  it('Domain.create(stack, null, …) stores the domain as domain-<name>, the id every peer looks it up by', async () => {
    const { stack, owns } = await fleet();
    expect([owns.id, owns.docId]).toEqual(['owns', 'domain-owns']);
    expect(await stack.storage.get('domain-owns')).toMatchObject({ name: 'owns', id: 'owns', type: 'domain' });
  });

  it('holds a relation until its domain and both ends are here; one whose referring document is refused is never stored', async () => {
    const { stack: peer } = await fleet();
    const ann = await peer.createDoc({ '~class': 'Person', name: 'ann' });
    const car = await peer.createDoc({ '~class': 'Car', plate: 'C1', owner: ann._id });
    const [relation] = await (await peer.useDomain('owns')).getRelations();

    const here = await memoryStack();
    await send(peer, here, (id) => !id.startsWith('domain-') && !id.startsWith('Person-') && !id.startsWith('Car-') && !id.startsWith('~rel-'));
    const [first] = await here.ingest(await revisionsOf(peer, [relation._id]));
    expect(first).toMatchObject({ ok: true, held: { code: 'DS_DOMAIN_NOT_FOUND', waitingFor: ['domain-owns'] } });
    await here.ingest(await revisionsOf(peer, ['domain-owns']));
    expect((await here.heldDocuments()).map((h) => [h.id, h.code, h.waitingFor])).toEqual([[relation._id, 'DS_RELATION_INVALID', [ann._id, car._id]]]);
    expect(await here.storage.get(relation._id)).toBeNull();
    // the car arrives with an owner that is not a Person: refused for real; the relation stays out
    const wrongOwner = { ...(await revisionsOf(peer, [car._id]))[0], owner: 'Car' };
    expect((await here.ingest([wrongOwner]))[0]).toMatchObject({ ok: false, code: 'DS_RELATION_INVALID' });
    expect(await here.storage.get(relation._id)).toBeNull();
    // the ends arrive: the car and its relation are stored
    await here.ingest(await revisionsOf(peer, [ann._id, car._id]));
    expect(await here.heldDocuments()).toEqual([]);
    expect(await active(here)).toEqual([[ann._id, car._id]]);
  });

  it('a relation held for an end that arrived deactivated by a path that announced nothing (a node killed between storing it and releasing) is applied by the next look', async () => {
    const { stack: peer } = await fleet();
    const ann = await peer.createDoc({ '~class': 'Person', name: 'ann' });
    const car = await peer.createDoc({ '~class': 'Car', plate: 'C1', owner: ann._id });
    const [relation] = await (await peer.useDomain('owns')).getRelations();
    await peer.deleteDocument(car._id); // soft: the car stays, inactive

    const here = await memoryStack();
    await send(peer, here, (id) => !id.startsWith('Car-') && !id.startsWith('~rel-'));
    const [first] = await here.ingest(await revisionsOf(peer, [relation._id]));
    expect(first).toMatchObject({ ok: true, held: { code: 'DS_RELATION_INVALID', waitingFor: [car._id] } });
    // the car is stored, and the process dies before the release: no event, no retry
    const [target] = await revisionsOf(peer, [car._id]);
    expect(target).toMatchObject({ active: false });
    await rawDb(here).bulkDocs([target] as never[], { new_edits: false });
    expect(await here.heldDocuments()).toEqual([]);
    expect(await here.storage.get(relation._id)).toMatchObject({ sourceId: ann._id, targetId: car._id });
  });

  it('a reference change then an edit, arriving relation-first, converges to the new owner', async () => {
    const { stack: peer } = await fleet();
    const ann = await peer.createDoc({ '~class': 'Person', name: 'ann' });
    const bob = await peer.createDoc({ '~class': 'Person', name: 'bob' });
    const car = await peer.createDoc({ '~class': 'Car', plate: 'C1', owner: ann._id });
    const here = await memoryStack();
    await send(peer, here);
    expect(await active(here)).toEqual([[ann._id, car._id]]);

    await peer.updateDoc(car._id, { owner: bob._id });
    await peer.updateDoc(car._id, { plate: 'C1-bis' });
    const relations = (await peer.storage.replication.changes({ since: 0 })).results.map((c) => c.id).filter((id) => id.startsWith('~rel-owns-'));
    expect(relations).toHaveLength(2);
    // the relations first (the new one, then the old one deactivated), the car last
    const results = await here.ingest([...(await revisionsOf(peer, relations)), ...(await revisionsOf(peer, [car._id]))]);
    expect(results.every((r) => r.ok && !('held' in r && r.held))).toBe(true);
    expect(await here.getDocument(car._id)).toMatchObject({ owner: bob._id, plate: 'C1-bis' });
    expect(await active(here)).toEqual([[bob._id, car._id]]);
  });

  it('concurrent owner changes on a 1:N target leave one active relation on every replica: the one the winning revision names', async () => {
    const { stack: a } = await fleet();
    const ann = await a.createDoc({ '~class': 'Person', name: 'ann' });
    const bob = await a.createDoc({ '~class': 'Person', name: 'bob' });
    const car = await a.createDoc({ '~class': 'Car', plate: 'C1' });
    const b = await memoryStack();
    await send(a, b);
    // apart: a gives the car to ann, b to bob
    await a.updateDoc(car._id, { owner: ann._id });
    await b.updateDoc(car._id, { owner: bob._id });
    // both ways twice: the deactivations each made travel too
    await exchange(a, b);
    const winner = (await a.getDocument(car._id))!.owner;
    expect((await b.getDocument(car._id))!.owner).toBe(winner);
    for (const stack of [a, b]) expect(await active(stack)).toEqual([[winner, car._id]]);
  });

  it('a soft delete that loses to a concurrent edit: the relation the winning revision names is active again on every replica', async () => {
    const { stack: a } = await fleet();
    const ann = await a.createDoc({ '~class': 'Person', name: 'ann' });
    const car = await a.createDoc({ '~class': 'Car', plate: 'C1', owner: ann._id });
    const b = await memoryStack();
    await send(a, b);
    // apart: b deletes the car (deactivating its relation), a edits it twice (the longer branch wins)
    await b.deleteDocument(car._id);
    expect(await active(b)).toEqual([]);
    await a.updateDoc(car._id, { plate: 'C1-bis' });
    await a.updateDoc(car._id, { plate: 'C1-ter' });
    await exchange(b, a);
    for (const stack of [a, b]) {
      expect(await stack.getDocument(car._id)).toMatchObject({ active: true, owner: ann._id, plate: 'C1-ter' });
      expect(await active(stack)).toEqual([[ann._id, car._id]]);
    }
    const [relation] = await (await a.useDomain('owns')).getRelations();
    expect((await b.storage.get(relation._id))?._rev).toBe((await a.storage.get(relation._id))?._rev);
  });

  it('a reference set on a losing branch, or on a document whose winning revision is soft-deleted, leaves no active relation', async () => {
    const { stack: a } = await fleet();
    const ann = await a.createDoc({ '~class': 'Person', name: 'ann' });
    const kept = await a.createDoc({ '~class': 'Car', plate: 'K1' });
    const gone = await a.createDoc({ '~class': 'Car', plate: 'G1' });
    const b = await memoryStack();
    await send(a, b);
    // apart: a gives both cars to ann; b edits one twice (no owner) and edits then deletes the other
    await a.updateDoc(kept._id, { owner: ann._id });
    await a.updateDoc(gone._id, { owner: ann._id });
    await b.updateDoc(kept._id, { plate: 'K2' });
    await b.updateDoc(kept._id, { plate: 'K3' });
    await b.updateDoc(gone._id, { plate: 'G2' });
    await b.deleteDocument(gone._id);
    await exchange(a, b);
    for (const stack of [a, b]) {
      expect(await stack.getDocument(kept._id)).toMatchObject({ plate: 'K3', active: true });
      expect((await stack.getDocument(kept._id))?.owner ?? null).toBeNull();
      expect((await stack.getDocument(gone._id, { includeInactive: true }))?.active).toBe(false);
      expect(await active(stack)).toEqual([]);
    }
  });

  it('a peer\'s tombstone of the winning leaf (a resolved conflict): the relations follow the leaf that wins now', async () => {
    const { stack: a } = await fleet();
    const ann = await a.createDoc({ '~class': 'Person', name: 'ann' });
    const bob = await a.createDoc({ '~class': 'Person', name: 'bob' });
    const car = await a.createDoc({ '~class': 'Car', plate: 'C1' });
    const b = await memoryStack();
    await send(a, b);
    await a.updateDoc(car._id, { owner: ann._id });
    await b.updateDoc(car._id, { owner: bob._id });
    await exchange(a, b);
    const winner = (await b.storage.get<{ _rev: string; owner: string }>(car._id))!;
    const loserOwner = winner.owner === ann._id ? bob._id : ann._id;
    expect(await active(b)).toEqual([[winner.owner, car._id]]);
    // a peer resolves the conflict by deleting the winning leaf: the other leaf wins
    const leaf = (await revisionsOf(b, [car._id])).find((l) => l._rev === winner._rev) as { _revisions: { ids: string[] } };
    const hash = 'a'.repeat(32);
    const results = await b.ingest([{ _id: car._id, _rev: `3-${hash}`, _deleted: true, _revisions: { start: 3, ids: [hash, ...leaf._revisions.ids] } }]);
    expect(results[0]).toMatchObject({ ok: true });
    expect((await b.getDocument(car._id))?.owner).toBe(loserOwner);
    expect(await active(b)).toEqual([[loserOwner, car._id]]);
  });
});
