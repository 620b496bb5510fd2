import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, definePlugin } from '../../../index.js';
import { Domain, domainsPlugin } from '../../../plugins/domains/index.js';
import { browser } from '../../../plugins.config.js';
import { expectRefused, memoryStack, track, uniqueName } from '../../helpers/stack.js';

async function fleet() {
  const stack = await memoryStack();
  const person = await Class.create(stack, 'Person', 'class', '', { name: { type: 'string' } });
  const car = await Class.create(stack, 'Car', 'class', '', { plate: { type: 'string' } });
  const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
  const active = async () => owns.getRelations();
  return { stack, person, car, owns, active };
}

describe('reference attributes: placement', () => {
  it('are allowed on the target of 1:N, the source of N:1, either end of 1:1, and never on N:N or as arrays', async () => {
    const { stack, person, car } = await fleet();
    await Domain.create(stack, null, 'parks', 'domain', 'N:1', 'Person', 'Car');
    await Domain.create(stack, null, 'married', 'domain', '1:1', 'Person', 'Car');
    await Domain.create(stack, null, 'drives', 'domain', 'N:N', 'Person', 'Car');
    await Attribute.create(car, 'owner', 'reference', '', { domain: 'owns' });
    await Attribute.create(person, 'parking', 'reference', '', { domain: 'parks' });
    await Attribute.create(person, 'spouseCar', 'reference', '', { domain: 'married' });
    await Attribute.create(car, 'spouse', 'reference', '', { domain: 'married' });
    const before = (await stack.storage.get('Person'))?._rev;
    await expectRefused(Attribute.create(person, 'cars', 'reference', '', { domain: 'owns' }), 'DS_ATTRIBUTE_REFERENCE_PLACEMENT', 'cars');
    await expectRefused(Attribute.create(car, 'parker', 'reference', '', { domain: 'parks' }), 'DS_ATTRIBUTE_REFERENCE_PLACEMENT', 'parker');
    await expectRefused(Attribute.create(person, 'driven', 'reference', '', { domain: 'drives' }), 'DS_ATTRIBUTE_REFERENCE_PLACEMENT', 'driven');
    await expectRefused(Attribute.create(person, 'many', 'reference', '', { domain: 'parks', isArray: true }), 'DS_ATTRIBUTE_REFERENCE_ARRAY', 'many');
    await expectRefused(Attribute.create(person, 'ghost', 'reference', '', { domain: 'nope' }), 'DS_DOMAIN_NOT_FOUND', 'ghost');
    expect((await stack.storage.get('Person'))?._rev).toBe(before);
  });

  it('are refused on a stack without the domains plugin', async () => {
    const stack = track(await createStack({ name: uniqueName(), adapter: 'memory', plugins: browser.filter((p) => p && (p as { name: string }).name !== 'domains') }));
    const cls = await Class.create(stack, 'Thing', 'class');
    await expectRefused(Attribute.create(cls, 'r', 'reference', '', { domain: 'any' }), 'DS_ATTRIBUTE_TYPE_UNKNOWN', 'r');
  });
});

describe('reference attributes: relations follow the document', () => {
  it('setting creates the relation, changing moves it, null removes it', async () => {
    const { stack, car, active } = await fleet();
    await Attribute.create(car, 'owner', 'reference', '', { domain: 'owns' });
    const ann = await stack.createDoc({ '~class': 'Person', name: 'ann' });
    const bob = await stack.createDoc({ '~class': 'Person', name: 'bob' });
    const c1 = await stack.createDoc({ '~class': 'Car', plate: 'C1', owner: ann._id });
    expect((await active()).map((r) => [r.sourceId, r.targetId])).toEqual([[ann._id, c1._id]]);
    await stack.updateDoc(c1._id, { owner: bob._id });
    expect((await active()).map((r) => [r.sourceId, r.targetId])).toEqual([[bob._id, c1._id]]);
    await stack.updateDoc(c1._id, { plate: 'C1-renamed' }); // unrelated change: relation untouched
    expect(await active()).toHaveLength(1);
    await stack.updateDoc(c1._id, { owner: null });
    expect(await active()).toHaveLength(0);
  });

  it('deleting the document deactivates its relations', async () => {
    const { stack, car, active } = await fleet();
    await Attribute.create(car, 'owner', 'reference', '', { domain: 'owns' });
    const ann = await stack.createDoc({ '~class': 'Person', name: 'ann' });
    const c1 = await stack.createDoc({ '~class': 'Car', plate: 'C1', owner: ann._id });
    await stack.createDoc({ '~class': 'Car', plate: 'C2', owner: ann._id });
    expect(await active()).toHaveLength(2);
    await stack.deleteDocument(c1._id);
    expect(await active()).toHaveLength(1);
    await stack.deleteDocument(ann._id);
    expect(await active()).toHaveLength(0);
  });

  it('refuses a reference to a missing or wrong-class document, storing nothing', async () => {
    const { stack, car, active } = await fleet();
    await Attribute.create(car, 'owner', 'reference', '', { domain: 'owns' });
    const other = await stack.createDoc({ '~class': 'Car', plate: 'C0' });
    await expectRefused(stack.createDoc({ '~class': 'Car', plate: 'C1', owner: 'Person-missing' }), 'DS_RELATION_INVALID', 'owner');
    await expectRefused(stack.createDoc({ '~class': 'Car', plate: 'C2', owner: other._id }), 'DS_RELATION_INVALID', 'owner');
    expect(await stack.findDocuments('Car')).toHaveLength(1);
    expect(await active()).toHaveLength(0);
  });

  it('refuses a reference that would break the cardinality (1:1), storing nothing', async () => {
    const { stack, car } = await fleet();
    const married = await Domain.create(stack, null, 'married', 'domain', '1:1', 'Person', 'Car');
    await Attribute.create(car, 'spouse', 'reference', '', { domain: 'married' });
    const ann = await stack.createDoc({ '~class': 'Person', name: 'ann' });
    await stack.createDoc({ '~class': 'Car', plate: 'C1', spouse: ann._id });
    await expectRefused(stack.createDoc({ '~class': 'Car', plate: 'C2', spouse: ann._id }), 'DS_RELATION_CARDINALITY', 'spouse');
    expect(await stack.findDocuments('Car')).toHaveLength(1);
    expect(await married.getRelations()).toHaveLength(1);
  });

  it('reports a relation lost to a concurrent writer instead of failing the stored write', async () => {
    const { stack, car } = await fleet();
    const married = await Domain.create(stack, null, 'married', 'domain', '1:1', 'Person', 'Car');
    await Attribute.create(car, 'spouse', 'reference', '', { domain: 'married' });
    const ann = await stack.createDoc({ '~class': 'Person', name: 'ann' });
    // two writes validated before either relation exists: one relation wins, the other is reported
    const failures: { code?: string; attribute?: string }[] = [];
    stack.on('relation:failed', (e) => failures.push(e));
    const results = await Promise.allSettled([
      stack.createDoc({ '~class': 'Car', plate: 'C1', spouse: ann._id }),
      stack.createDoc({ '~class': 'Car', plate: 'C2', spouse: ann._id }),
    ]);
    const stored = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected').length;
    expect(await married.getRelations()).toHaveLength(1);
    // either validation saw the first relation (one refused) or both passed it and one relation failed afterwards
    expect(stored + refused).toBe(2);
    expect(refused + failures.length).toBe(1);
    for (const f of failures) expect(f).toMatchObject({ code: 'DS_RELATION_CARDINALITY', attribute: 'spouse' });
  });
});

describe('a third-party plugin can use domains', () => {
  it('reads relations through stack.useDomain in a hook', async () => {
    const counts: number[] = [];
    const counting: Promise<unknown>[] = []; // one per relation event: the plugin's work, to wait for
    const counter = definePlugin({
      name: 'relation-counter',
      requires: ['domains'],
      setup: ({ stack, use }) => {
        const domains = use(domainsPlugin)!;
        stack.on('relation', () => void counting.push(domains.useByName('owns').then(async (d) => counts.push((await d.getRelations()).length))));
      },
    });
    const stack = track(await createStack({ name: uniqueName(), adapter: 'memory', plugins: [...browser, counter] }));
    await Class.create(stack, 'Person', 'class');
    await Class.create(stack, 'Car', 'class');
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car');
    await owns.addRelation(await stack.createDoc({ '~class': 'Person' }), (await stack.createDoc({ '~class': 'Car' }))._id);
    expect(counting).toHaveLength(1); // the event came before addRelation returned
    await Promise.all(counting);
    expect(counts).toEqual([1]);
  });
});
