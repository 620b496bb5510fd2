import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { Domain } from '../../../plugins/domains/index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';
import { expectRefused, memoryStack, rawDb, tempDir, track, uniqueName } from '../../helpers/stack.js';

async function people(stack?: BrowserStack) {
  const s = stack ?? (await memoryStack());
  await Class.create(s, 'Person', 'class', '', { name: { type: 'string', primaryKey: true } });
  await Class.create(s, 'Car', 'class', '', { plate: { type: 'string', primaryKey: true } });
  const person = (name: string) => s.createDoc({ '~class': 'Person', name });
  const car = (plate: string) => s.createDoc({ '~class': 'Car', plate });
  const relations = async (name: string) => (await (await s.useDomain(name)).getRelations()).length;
  return { stack: s, person, car, relations };
}

describe('Domain.create', () => {
  it('writes a domain document of the domain meta-class, in the SPEC\'s shape, under domain-<name>', async () => {
    const { stack } = await people();
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car', 'who owns which car');
    // a null id: the service makes one — the name
    expect([owns.id, owns.docId, owns.type]).toEqual(['owns', 'domain-owns', 'domain']);
    const stored = await stack.storage.get('domain-owns');
    expect(stored).toMatchObject({ '~class': 'domain', type: 'domain', id: 'owns', name: 'owns', relation: '1:N', sourceClass: 'Person', targetClass: 'Car', description: 'who owns which car', active: true });
    expect(typeof stored?.['~createTimestamp']).toBe('string');
    // a given id is stored as the id field; the document is still domain-<name>
    const given = await Domain.create(stack, 'd-42', 'drives', 'domain', 'N:N', 'Person', 'Car');
    expect([given.id, given.docId]).toEqual(['d-42', 'domain-drives']);
    expect(await stack.storage.get('domain-drives')).toMatchObject({ type: 'domain', id: 'd-42', name: 'drives' });
    expect(await stack.storage.get('domain-d-42')).toBeNull();
    expect(await stack.useDomain('owns')).toBe(owns);
    expect((await stack.useDomain('drives')).id).toBe('d-42');
  });

  it('takes the classes as Class objects (the specification) or as names, storing names', async () => {
    const { stack } = await people();
    const person = await stack.getClass('Person');
    const car = await stack.getClass('Car');
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', person, car);
    expect(await stack.getDocument(owns.docId)).toMatchObject({ sourceClass: 'Person', targetClass: 'Car' });
    const mixed = await Domain.create(stack, null, 'rents', 'domain', 'N:N', person, 'Car');
    expect(await stack.getDocument(mixed.docId)).toMatchObject({ sourceClass: 'Person', targetClass: 'Car' });
    await expectRefused(Domain.create(stack, null, 'bad', 'domain', '1:1', person, {} as never), 'DS_DOMAIN_INVALID', 'targetClass');
  });

  it('refuses bad models and a taken name, storing nothing', async () => {
    const { stack } = await people();
    await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    await expectRefused(Domain.create(stack, null, 'owns', 'domain', 'N:N', 'Person', 'Car'), 'DS_DOMAIN_EXISTS', 'name');
    await expectRefused(Domain.create(stack, null, 'x', 'domain', '2:2' as never, 'Person', 'Car'), 'DS_DOMAIN_INVALID', 'relation');
    await expectRefused(Domain.create(stack, null, 'y', 'domain', '1:1', 'Nobody', 'Car'), 'DS_DOMAIN_INVALID', 'sourceClass');
    await expectRefused(Domain.create(stack, null, 'bad-name', 'domain', '1:1', 'Person', 'Car'), 'DS_DOMAIN_INVALID', 'name');
    await expectRefused(Domain.create(stack, null, 'z', 'class', '1:1', 'Person', 'Car'), 'DS_DOMAIN_INVALID', 'type');
    await expectRefused(Domain.create(stack, '', 'z', 'domain', '1:1', 'Person', 'Car'), 'DS_DOMAIN_INVALID', 'id');
    await expectRefused(Domain.create(stack, 'x'.repeat(129), 'z', 'domain', '1:1', 'Person', 'Car'), 'DS_DOMAIN_INVALID', 'id');
    await expectRefused(Domain.create(stack, 42 as never, 'z', 'domain', '1:1', 'Person', 'Car'), 'DS_DOMAIN_INVALID', 'id');
    // an id is one domain's: "owns" is taken by the domain made with a null id
    await expectRefused(Domain.create(stack, 'owns', 'z', 'domain', '1:1', 'Person', 'Car'), 'DS_DOMAIN_EXISTS', 'id');
    expect((await stack.findDocuments('domain')).map((d) => d.name)).toEqual(['owns']);
    await expectRefused(stack.useDomain('nope'), 'DS_DOMAIN_NOT_FOUND');
  });
});

describe('relations', () => {
  it('stores ~domain, the classes and both ids; refuses missing, inactive and wrong-class ends', async () => {
    const { stack, person, car, relations } = await people();
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const ann = await person('ann');
    const c1 = await car('C1');
    const rel = await owns.addRelation(ann, c1._id);
    const stored = (await stack.storage.get(rel._id)) as Record<string, unknown>;
    expect(stored).toMatchObject({ '~domain': 'owns', sourceClass: 'Person', targetClass: 'Car', sourceId: ann._id, targetId: c1._id, active: true });
    expect(stored['~class']).toBeUndefined();
    const gone = await car('C2');
    await stack.deleteDocument(gone._id);
    await expectRefused(owns.addRelation(ann, gone._id), 'DS_RELATION_INVALID', 'targetId');
    await expectRefused(owns.addRelation(ann, 'Car-missing'), 'DS_RELATION_INVALID', 'targetId');
    await expectRefused(owns.addRelation(c1._id, ann._id), 'DS_RELATION_INVALID', 'sourceId');
    expect(await relations('owns')).toBe(1);
  });

  it('enforces each cardinality', async () => {
    const { stack, person, car, relations } = await people();
    const [ann, bob] = [await person('ann'), await person('bob')];
    const [c1, c2] = [await car('C1'), await car('C2')];
    const oneToOne = await Domain.create(stack, null, 'married', 'domain', '1:1', 'Person', 'Car');
    await oneToOne.addRelation(ann, c1._id);
    await expectRefused(oneToOne.addRelation(ann, c2._id), 'DS_RELATION_CARDINALITY');
    await expectRefused(oneToOne.addRelation(bob, c1._id), 'DS_RELATION_CARDINALITY');
    const oneToMany = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    await oneToMany.addRelation(ann, c1._id);
    await oneToMany.addRelation(ann, c2._id);
    await expectRefused(oneToMany.addRelation(bob, c1._id), 'DS_RELATION_CARDINALITY');
    const manyToOne = await Domain.create(stack, null, 'parks', 'domain', 'N:1', 'Person', 'Car');
    await manyToOne.addRelation(ann, c1._id);
    await manyToOne.addRelation(bob, c1._id);
    await expectRefused(manyToOne.addRelation(ann, c2._id), 'DS_RELATION_CARDINALITY');
    const manyToMany = await Domain.create(stack, null, 'drives', 'domain', 'N:N', 'Person', 'Car');
    for (const p of [ann, bob]) for (const c of [c1, c2]) await manyToMany.addRelation(p, c._id);
    await expectRefused(manyToMany.addRelation(ann, c1._id), 'DS_RELATION_EXISTS');
    expect([await relations('married'), await relations('owns'), await relations('parks'), await relations('drives')]).toEqual([1, 2, 2, 4]);
  });

  it('holds under concurrency: of concurrent adds that would break 1:1 or 1:N exactly one succeeds', async () => {
    const { stack, person, car, relations } = await people();
    const one = await Domain.create(stack, null, 'married', 'domain', '1:1', 'Person', 'Car');
    const many = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const ann = await person('ann');
    const cars = await Promise.all(Array.from({ length: 6 }, (_, i) => car(`C${i}`)));
    const persons = await Promise.all(Array.from({ length: 6 }, (_, i) => person(`p${i}`)));
    const oneResults = await Promise.allSettled(cars.map((c) => one.addRelation(ann, c._id)));
    expect(oneResults.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const manyResults = await Promise.allSettled(persons.map((p) => many.addRelation(p, cars[0]._id)));
    expect(manyResults.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of [...oneResults, ...manyResults]) if (r.status === 'rejected') expect(r.reason.code).toBe('DS_RELATION_CARDINALITY');
    expect([await relations('married'), await relations('owns')]).toEqual([1, 1]);
  });

  it('holds across two stack instances of one store', async () => {
    const name = uniqueName('domains-shared');
    const a = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    const b = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    const { person, car } = await people(a);
    await Domain.create(a, null, 'married', 'domain', '1:1', 'Person', 'Car');
    const [ann, bob, c1] = [await person('ann'), await person('bob'), await car('C1')];
    const results = await Promise.allSettled([(await a.useDomain('married')).addRelation(ann, c1._id), (await b.useDomain('married')).addRelation(bob, c1._id)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('lists with selectors, validates without writing, deletes and frees the end', async () => {
    const { stack, person, car, relations } = await people();
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const [ann, bob] = [await person('ann'), await person('bob')];
    const cars = await Promise.all(['C1', 'C2', 'C3'].map(car));
    for (const c of cars) await owns.addRelation(ann, c._id);
    expect(await owns.getRelations({ sourceId: ann._id }, ['targetId'], 1, 1)).toHaveLength(1);
    expect((await owns.getRelations({ targetId: cars[2]._id }))[0]).toMatchObject({ sourceId: ann._id });
    await expectRefused(owns.validateRelation(bob, cars[0]._id), 'DS_RELATION_CARDINALITY');
    await owns.deleteRelation(ann._id, cars[0]._id);
    expect(await relations('owns')).toBe(2);
    await expect(owns.validateRelation(bob, cars[0]._id)).resolves.toBe(true);
    expect(await relations('owns')).toBe(2); // validateRelation wrote nothing
    await owns.addRelation(bob, cars[0]._id);
    await expectRefused(owns.deleteRelation(ann._id, cars[0]._id), 'DS_RELATION_NOT_FOUND');
  });

  it('notifies live domain listeners of relation changes', async () => {
    const { stack, person, car } = await people();
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const seen: string[] = [];
    owns.on('change', (c: { id: string }) => seen.push(c.id));
    const rel = await owns.addRelation(await person('ann'), (await car('C1'))._id);
    const end = Date.now() + 2000;
    while (!seen.includes(rel._id) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toContain(rel._id);
  });

  it('deactivates the relations of a deleted document, in every domain', async () => {
    const { stack, person, car, relations } = await people();
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const drives = await Domain.create(stack, null, 'drives', 'domain', 'N:N', 'Person', 'Car');
    const [ann, bob] = [await person('ann'), await person('bob')];
    const c1 = await car('C1');
    await owns.addRelation(ann, c1._id);
    await drives.addRelation(ann, c1._id);
    await drives.addRelation(bob, c1._id);
    await stack.deleteDocument(ann._id);
    expect([await relations('owns'), await relations('drives')]).toEqual([0, 1]);
    await owns.addRelation(bob, c1._id); // the car's one owner slot is free again
    await stack.deleteDocument(c1._id);
    expect([await relations('owns'), await relations('drives')]).toEqual([0, 0]);
  });

  it('keeps relations and their cardinality across a leveldb reopen', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('domains-durable');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser });
    const { person, car } = await people(first);
    const owns = await Domain.create(first, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const [ann, bob, c1] = [await person('ann'), await person('bob'), await car('C1')];
    await owns.addRelation(ann, c1._id);
    await first.close();
    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser }));
    const reopened = await second.useDomain('owns');
    expect(await reopened.getRelations()).toHaveLength(1);
    await expectRefused(reopened.addRelation(bob, c1._id), 'DS_RELATION_CARDINALITY');
  });
});

describe('relations that arrive by replication', () => {
  it('count for cardinality on the receiving stack', async () => {
    const replication = (await import('pouchdb-replication')).default;
    const { registerPouchPlugin } = await import('../../../storage/pouch-plugins.js');
    registerPouchPlugin(replication);
    const a = await memoryStack();
    const { person, car } = await people(a);
    const owns = await Domain.create(a, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    const [ann, c1] = [await person('ann'), await car('C1')];
    await owns.addRelation(ann, c1._id);
    const b = await memoryStack();
    await (rawDb(a) as unknown as { replicate: { to(db: unknown): Promise<unknown> } }).replicate.to(rawDb(b));
    const bob = await b.createDoc({ '~class': 'Person', name: 'bob' });
    const onB = await b.useDomain('owns');
    // the car already has its one owner, by a relation B never wrote itself
    await expectRefused(onB.addRelation(bob, c1._id), 'DS_RELATION_CARDINALITY');
    await b.deleteDocument(c1._id); // and B's delete deactivates that replicated relation
    expect(await onB.getRelations()).toHaveLength(0);
  });
});
