/**
 * Dependency-aware ingest: a peer's document whose class, foreign-key target class or document,
 * domain or relation end has not arrived is held (durably, per replica) and applied as soon as
 * it arrives — in the same batch, a later one, or after a reopen; cycles converge; a real
 * refusal stays a refusal, with its code, and nothing stored.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, DocstackError, type ClientStack, type HeldEntry } from '../../index.js';
import { HeldStore } from '../../engine/ingest/ingest-held.js';
import { browser } from '../../plugins.config.js';
import { memoryStack, tempDir, track, uniqueName } from '../helpers/stack.js';

const rev = (stack: ClientStack, id: string) => stack.storage.replication.get(id, { revs: true });

/** A peer holding Customer, Site (FK to Customer) and Customer.primarySite (FK back to Site), with one of each. */
async function author() {
  const peer = await memoryStack();
  const customer = await Class.create(peer, 'Customer', 'class', '', { name: { type: 'string' } });
  await Class.create(peer, 'Site', 'class', '', { name: { type: 'string' }, customer: { type: 'foreign_key', targetClass: 'Customer' } });
  await Attribute.create(customer, 'primarySite', 'foreign_key', '', { targetClass: 'Site' });
  const acme = await peer.createDoc({ '~class': 'Customer', name: 'Acme' });
  const north = await peer.createDoc({ '~class': 'Site', name: 'North', customer: acme._id });
  await peer.updateDoc(acme._id, { primarySite: north._id });
  return { peer, acme: acme._id, north: north._id };
}

function listen(stack: ClientStack) {
  const events: { held: HeldEntry[]; released: { id: string }[]; refused: { id: string; code: string }[] } = { held: [], released: [], refused: [] };
  stack.on('ingest:held', (e: HeldEntry) => events.held.push(e));
  stack.on('ingest:released', (e: { id: string }) => events.released.push(e));
  stack.on('ingest:refused', (e: { id: string; code: string }) => events.refused.push(e));
  return events;
}

describe('stack.ingest holds what waits for something not here yet', () => {
  it('takes a batch in any order: classes that name each other (a cycle) and documents that name each other', async () => {
    const { peer, acme, north } = await author();
    const here = await memoryStack();
    const events = listen(here);
    // the worst order: referrers first, the cycle's classes in reverse
    const results = await here.ingest([await rev(peer, north), await rev(peer, acme), await rev(peer, 'Site'), await rev(peer, 'Customer')]);
    expect(results.map((r) => r.ok && !('held' in r && r.held))).toEqual([true, true, true, true]);
    expect(await here.getDocument(north)).toMatchObject({ customer: acme });
    expect(await here.getDocument(acme)).toMatchObject({ primarySite: north });
    expect(await here.heldDocuments()).toEqual([]);
    expect(events).toEqual({ held: [], released: [], refused: [] });
  });

  it('holds across batches, one document at a time, and releases each as what it waits for arrives', async () => {
    const { peer, acme, north } = await author();
    const here = await memoryStack();
    const events = listen(here);
    const [site] = await here.ingest([await rev(peer, 'Site')]);
    expect(site).toMatchObject({ ok: true, held: { code: 'DS_ATTRIBUTE_TARGET_CLASS', waitingFor: ['Customer'] } });
    expect(await here.storage.get('Site')).toBeNull();
    const [customer] = await here.ingest([await rev(peer, 'Customer')]);
    // Customer waits for Site, Site for Customer: retried together, stored together
    expect(customer).toMatchObject({ ok: true, rev: expect.any(String) });
    expect(customer.ok && customer.held).toBeFalsy();
    expect(await here.storage.get('Site')).not.toBeNull();
    expect(events.released.map((e) => e.id)).toEqual(['Site']);

    const [first] = await here.ingest([await rev(peer, north)]);
    expect(first).toMatchObject({ ok: true, held: { code: 'DS_VALIDATION_FOREIGN_KEY', waitingFor: [acme] } });
    expect(await here.getDocument(north)).toBeNull();
    expect(await here.heldDocuments()).toEqual([expect.objectContaining({ id: north, code: 'DS_VALIDATION_FOREIGN_KEY', waitingFor: [acme], since: expect.any(String) })]);
    expect(events.held.map((e) => e.id)).toEqual(['Site', north]);
    // acme names north (held), north names acme: they validate against each other
    await here.ingest([await rev(peer, acme)]);
    expect(await here.getDocument(north)).toMatchObject({ customer: acme });
    expect(await here.getDocument(acme)).toMatchObject({ primarySite: north });
    expect(await here.heldDocuments()).toEqual([]);
    expect(events.refused).toEqual([]);
  });

  it('keeps held documents across a reopen (leveldb) and applies them when their target arrives later', async () => {
    const { peer, acme, north } = await author();
    const dataDir = await tempDir();
    const name = uniqueName('held');
    const open = async () => track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser }));
    let here = await open();
    await here.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site'), await rev(peer, north)]);
    expect((await here.heldDocuments()).map((h) => h.id)).toEqual([north]);
    await here.close();

    here = await open();
    expect((await here.heldDocuments()).map((h) => [h.id, h.code, h.waitingFor])).toEqual([[north, 'DS_VALIDATION_FOREIGN_KEY', [acme]]]);
    const released: string[] = [];
    here.on('ingest:released', (e: { id: string }) => released.push(e.id));
    await here.ingest([await rev(peer, acme)]);
    expect(released).toEqual([north]);
    expect(await here.getDocument(north)).toMatchObject({ name: 'North' });
    expect(await here.heldDocuments()).toEqual([]);
  });

  it('a release cut short mid-retry (the process killed) leaves the held documents held, on disk', async () => {
    const { peer, acme, north } = await author();
    const dataDir = await tempDir();
    const name = uniqueName('held-cut');
    const open = async () => track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser }));
    const here = await open();
    await here.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site'), await rev(peer, north)]);
    // the retry dies before storing anything, as a kill -9 between taking and storing would
    const store = new HeldStore(here.storage);
    await expect(store.release([acme], async () => Promise.reject(new Error('killed')))).rejects.toThrow('killed');
    await here.close();
    const again = await open();
    expect((await again.heldDocuments()).map((h) => [h.id, h.waitingFor])).toEqual([[north, [acme]]]);
    expect(await again.storage.get(north)).toBeNull();
  });

  it('releases a document when its target is written here by the application, not only by a peer', async () => {
    const { peer, north } = await author();
    const here = await memoryStack();
    await here.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site')]);
    const waiting = { ...(await rev(peer, north)), customer: 'Customer-made-here' } as Record<string, unknown>;
    delete waiting._revisions;
    waiting._rev = '1-abcdef';
    expect((await here.ingest([waiting]))[0]).toMatchObject({ ok: true, held: { waitingFor: ['Customer-made-here'] } });
    await here.createDoc({ '~class': 'Customer', name: 'local' }, { id: 'Customer-made-here' });
    expect(await here.heldDocuments()).toEqual([]);
    expect(await here.getDocument(north)).toMatchObject({ customer: 'Customer-made-here' });
  });

  it('refuses for real, with the code and nothing stored: a target present but of another class or inactive; a held document whose target arrives inactive', async () => {
    const { peer, acme, north } = await author();
    const here = await memoryStack();
    const events = listen(here);
    await here.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site')]);
    const wrongClass = { ...(await rev(peer, north)), customer: 'Site' } as Record<string, unknown>;
    delete wrongClass._revisions;
    wrongClass._rev = '1-abc';
    expect((await here.ingest([wrongClass]))[0]).toMatchObject({ ok: false, code: 'DS_VALIDATION_FOREIGN_KEY' });
    expect(await here.storage.get(north)).toBeNull();

    expect((await here.ingest([await rev(peer, north)]))[0]).toMatchObject({ ok: true, held: { waitingFor: [acme] } });
    // the target arrives deactivated: the held document is refused for good, loudly
    await peer.deleteDocument(acme);
    await here.ingest([await rev(peer, acme)]);
    expect(events.refused).toEqual([expect.objectContaining({ id: north, code: 'DS_VALIDATION_FOREIGN_KEY' })]);
    expect(await here.storage.get(north)).toBeNull();
    // the deactivated customer still names north (refused): it waits for a revision of north this replica can take
    expect((await here.heldDocuments()).map((h) => [h.id, h.waitingFor])).toEqual([[acme, [north]]]);
    // with hold: false nothing waits: the same document is refused at once
    const other = await memoryStack();
    await other.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site')]);
    expect((await other.ingest([await rev(peer, north)], { hold: false }))[0]).toMatchObject({ ok: false, code: 'DS_VALIDATION_FOREIGN_KEY' });
    expect(await other.heldDocuments()).toEqual([]);
  });

  it('refuses (DS_DEPENDENCY_REFUSED), not holds, what waits for a document the same batch refused at admission: transitively, nothing stored or held', async () => {
    const { peer, acme, north } = await author();
    const here = await memoryStack();
    const events = listen(here);
    // as a node refuses a schema change from a user who is not an admin: before any check
    here.hooks.admit.tapPromise('no-customer-class', async (item) => {
      if (item.doc._id === 'Customer') throw new DocstackError('DS_CLASS_INVALID', 'not from this sender');
    });
    const results = await here.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site'), await rev(peer, acme), await rev(peer, north)]);
    expect(results[0]).toMatchObject({ ok: false, code: 'DS_CLASS_INVALID' });
    // Site's foreign key and acme's class name Customer; north's class is Site, refused in turn
    for (const line of results.slice(1)) expect(line).toMatchObject({ ok: false, code: 'DS_DEPENDENCY_REFUSED', status: 409 });
    expect(results[1]).toMatchObject({ reason: expect.stringContaining('"Customer" (DS_CLASS_INVALID)') });
    expect(results[3]).toMatchObject({ reason: expect.stringContaining('"Site" (DS_DEPENDENCY_REFUSED)') });
    for (const id of ['Customer', 'Site', acme, north]) expect(await here.storage.get(id)).toBeNull();
    expect(await here.heldDocuments()).toEqual([]);
    expect(events).toEqual({ held: [], released: [], refused: [] });
  });

  it('takes over the documents the patches plugin held before an upgrade (its _local record), and releases them', async () => {
    const { peer, acme } = await author();
    const dataDir = await tempDir();
    const name = uniqueName('legacy');
    const open = async () => track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser }));
    let here = await open();
    const doc = { ...(await rev(peer, acme)) } as Record<string, unknown>;
    await here.storage.put({ _id: '_local/~patches-held', docs: [doc] });
    await here.close();
    here = await open();
    expect((await here.heldDocuments()).map((h) => [h.id, h.waitingFor])).toEqual([[acme, ['Customer']]]);
    expect(await here.storage.get('_local/~patches-held')).toBeNull();
    await here.ingest([await rev(peer, 'Customer'), await rev(peer, 'Site')]);
    // acme names its primary site, not here: it now waits for it, under its own code
    expect((await here.heldDocuments()).map((h) => [h.id, h.code])).toEqual([[acme, 'DS_VALIDATION_FOREIGN_KEY']]);
  });
});
