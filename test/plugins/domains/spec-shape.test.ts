/**
 * Domain documents stored before the SPEC shape (no `id`, no `type`; `_id` `domain-<id>` when
 * Domain.create was given an id): the domains/0002 patch migrates them on the next open — the
 * same next revision on every replica — and such a document arriving from an older peer still
 * works (found by name, its relations released and stored).
 */
import { describe, expect, it } from 'vitest';
import { Class, type ClassModel, createStack, type ClientStack } from '../../../index.js';
import { Domain } from '../../../plugins/domains/index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';
import { expectRefused, rawDb, track, uniqueName } from '../../helpers/stack.js';

const T0 = '2026-01-01T00:00:00.000Z';
const PATCH = 'domains/0002-domain-spec-shape';

/** A domain document as versions before the SPEC shape wrote it. */
const oldDomain = (docId: string, name: string) => ({ _id: docId, '~class': 'domain', name, description: '', relation: '1:N', sourceClass: 'Person', targetClass: 'Car', active: true, '~createTimestamp': T0 });

const open = async (name: string) => track((await createStack({ name, adapter: 'memory', plugins: browser })) as BrowserStack);

/**
 * A memory store left as an older version left it: classes Person and Car, the two old-shape
 * domain documents (`owns` made with a null id, `rents` with the id "x7"), a domain meta-class
 * without `id`/`type` and no record of the 0002 patch. Returned closed.
 */
async function oldStore(): Promise<string> {
  const name = uniqueName('old-domains');
  const stack = await open(name);
  await Class.create(stack, 'Person', 'class', '', { name: { type: 'string' } });
  await Class.create(stack, 'Car', 'class', '', { plate: { type: 'string' } });
  const meta = (await stack.storage.get<ClassModel>('domain'))!;
  const { id: _id, type: _type, ...schema } = meta.schema;
  await stack.storage.put<ClassModel>({ ...meta, schema });
  await stack.storage.put(oldDomain('domain-owns', 'owns'));
  await stack.storage.put(oldDomain('domain-x7', 'rents'));
  const record = (await stack.storage.get('_local/~system-patches')) as { _id: string; applied: { id: string }[] };
  await stack.storage.put({ ...record, applied: record.applied.filter((p) => p.id !== PATCH) });
  await stack.close();
  return name;
}

async function personAndCar(stack: ClientStack) {
  const ann = await stack.createDoc({ '~class': 'Person', name: 'Ann' });
  const car = await stack.createDoc({ '~class': 'Car', plate: 'A-1' });
  return { ann, car };
}

describe('domain documents of older versions', () => {
  it('the 0002 patch gives them id and type (the id their _id was made from) and they keep working', async () => {
    const stack = await open(await oldStore());
    expect(await stack.storage.get('domain-owns')).toMatchObject({ id: 'owns', type: 'domain', name: 'owns' });
    expect(await stack.storage.get('domain-x7')).toMatchObject({ id: 'x7', type: 'domain', name: 'rents' });
    expect(Object.keys((await stack.requireClass('domain')).schema)).toEqual(expect.arrayContaining(['id', 'type']));
    const rents = await stack.useDomain('rents');
    expect([rents.id, rents.docId]).toEqual(['x7', 'domain-x7']);
    const { ann, car } = await personAndCar(stack);
    await rents.addRelation(ann, car._id);
    expect((await rents.getRelations()).map((r) => [r.sourceId, r.targetId])).toEqual([[ann._id, car._id]]);
    await expectRefused(Domain.create(stack, null, 'rents', 'domain', 'N:N', 'Person', 'Car'), 'DS_DOMAIN_EXISTS', 'name');
    await expectRefused(Domain.create(stack, 'x7', 'leases', 'domain', 'N:N', 'Person', 'Car'), 'DS_DOMAIN_EXISTS', 'id');
  });

  it('two replicas migrating the same revision write the same revision: syncing them makes no conflict', async () => {
    const [a, b] = [await open(await oldStore()), await open(await oldStore())];
    const [onA, onB] = [await a.storage.get('domain-owns'), await b.storage.get('domain-owns')];
    expect(onA?._rev).toMatch(/^2-/);
    expect(onB?._rev).toBe(onA?._rev);
    await rawDb(a).sync(rawDb(b));
    const synced = (await rawDb(a).get('domain-owns', { conflicts: true })) as { _conflicts?: string[]; _rev: string };
    expect([synced._rev, synced._conflicts ?? []]).toEqual([onA?._rev, []]);
  });

  it('a patched store reopened does nothing more; a store already in the new shape is left as it is', async () => {
    const name = await oldStore();
    const first = await open(name);
    const rev = (await first.storage.get('domain-x7'))?._rev;
    await first.close();
    const again = await open(name);
    expect((await again.storage.get('domain-x7'))?._rev).toBe(rev);
    expect(again.patchCount).toBe(5);
  });

  it("an older peer's domain document (domain-<id>, no id or type) releases the relation held for it", async () => {
    const here = await open(uniqueName('here'));
    await Class.create(here, 'Person', 'class', '', { name: { type: 'string' } });
    await Class.create(here, 'Car', 'class', '', { plate: { type: 'string' } });
    const { ann, car } = await personAndCar(here);
    const relation = { _id: '~rel-rents-1', _rev: '1-a1', '~domain': 'rents', sourceClass: 'Person', targetClass: 'Car', sourceId: ann._id, targetId: car._id, active: true, '~createTimestamp': T0 };
    expect((await here.ingest([relation]))[0]).toMatchObject({ ok: true, held: { code: 'DS_DOMAIN_NOT_FOUND', waitingFor: ['domain-rents'] } });
    expect((await here.ingest([{ ...oldDomain('domain-x7', 'rents'), _rev: '1-b2' }]))[0]).toMatchObject({ ok: true });
    expect(await here.heldDocuments()).toEqual([]);
    const rents = await here.useDomain('rents');
    expect(rents.id).toBe('x7');
    expect((await rents.getRelations()).map((r) => r._id)).toEqual(['~rel-rents-1']);
    // a peer's domain in the SPEC shape is checked like one written here: its type is "domain"
    const wrongType = { ...oldDomain('domain-leases', 'leases'), id: 'leases', type: 'class', _rev: '1-c3' };
    expect((await here.ingest([wrongType]))[0]).toMatchObject({ ok: false, code: expect.stringMatching(/^DS_VALIDATION_/) });
    expect(await here.storage.get('domain-leases')).toBeNull();
  });
});
