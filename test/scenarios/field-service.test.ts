/**
 * The field-service app of issue #25, synced through a real node: Customer, Site (foreign key
 * to Customer), Visit (foreign key to Site), Customer.primarySite (a foreign key back: a cycle),
 * a domain made as docs/domains.md shows (`Domain.create(stack, null, …)`) with a reference
 * attribute, and documents — a target edited after its referrers. ONE `stack.sync` stores all of
 * it on the node, and a fresh client pulling gets all of it; with batchSize 1 too (every
 * document in its own batch, in the changes feed's order).
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack } from '../../index.js';
import { Domain } from '../../plugins/domains/index.js';
import { browser } from '../../plugins.config.js';
import { track, uniqueName } from '../helpers/stack.js';
import { ADMIN, testNode } from '../server/node-helpers.js';

type App = Awaited<ReturnType<typeof app>>;

async function app() {
  return track(await createStack({ name: uniqueName('field'), adapter: 'memory', plugins: browser }));
}

/** The schema and data, built locally the way an app would, in that order. */
async function buildFieldService(stack: App) {
  const customer = await Class.create(stack, 'Customer', 'class', '', { name: { type: 'string', mandatory: true } });
  const site = await Class.create(stack, 'Site', 'class', '', { name: { type: 'string' }, customer: { type: 'foreign_key', targetClass: 'Customer' } });
  await Class.create(stack, 'Visit', 'class', '', { site: { type: 'foreign_key', targetClass: 'Site' }, note: { type: 'string' } });
  await Attribute.create(customer, 'primarySite', 'foreign_key', '', { targetClass: 'Site' });
  await Domain.create(stack, null, 'SiteOwner', 'domain', '1:N', 'Customer', 'Site');
  await Attribute.create(site, 'owner', 'reference', '', { domain: 'SiteOwner' });

  const acme = await stack.createDoc({ '~class': 'Customer', name: 'Acme' });
  const north = await stack.createDoc({ '~class': 'Site', name: 'North', customer: acme._id, owner: acme._id });
  const south = await stack.createDoc({ '~class': 'Site', name: 'South', customer: acme._id });
  const visits = [];
  for (const site of [north, south]) visits.push(await stack.createDoc({ '~class': 'Visit', site: site._id, note: `visit ${site.name}` }));
  await stack.updateDoc(acme._id, { primarySite: north._id });
  // targets edited after their referrers: the changes feed now lists them after the visits
  await stack.updateDoc(north._id, { name: 'North (renamed)' });
  await stack.updateDoc(south._id, { name: 'South (renamed)' });
  return { acme, north, south, visits };
}

async function snapshot(stack: App) {
  const names = async (cls: string) => (await stack.findDocuments(cls)).map((d) => d._id).sort();
  const domain = await stack.useDomain('SiteOwner');
  return {
    customers: await names('Customer'),
    sites: await names('Site'),
    visits: await names('Visit'),
    primarySite: (await stack.findDocuments('Customer'))[0]?.primarySite,
    relations: (await domain.getRelations()).map((r) => [r.sourceId, r.targetId]),
  };
}

for (const batchSize of [undefined, 1]) {
  describe(`field service through a node${batchSize ? ', one document per batch' : ''}`, () => {
    it('one sync stores every class, domain, relation and document on the node; a fresh client pulls them all', async () => {
      const { node } = await testNode();
      const { url } = await node.start();
      const remote = `${url}/db/docstack`;
      const first = await app();
      const data = await buildFieldService(first);
      const expected = await snapshot(first);
      expect(expected.relations).toEqual([[data.acme._id, data.north._id]]);

      const pushed = await first.sync({ remote, auth: ADMIN, ...(batchSize ? { batchSize } : {}) });
      const errs = ((pushed.push as { errors: { id?: string; name?: string; message?: string; code?: string }[] }).errors ?? []).map((e) => [e.id, e.name, e.message, e.code]);
      expect(errs).toEqual([]);
      expect(pushed.push).toMatchObject({ doc_write_failures: 0, errors: [] });
      const onNode = node.stack();
      expect(await onNode.heldDocuments()).toEqual([]);
      expect(await snapshot(onNode as unknown as App)).toEqual(expected);
      expect(await onNode.getDocument(data.north._id)).toMatchObject({ name: 'North (renamed)', owner: data.acme._id });

      const second = await app();
      const held: unknown[] = [];
      second.on('ingest:held', (e) => held.push(e));
      const pulled = await second.sync({ remote, auth: ADMIN, ...(batchSize ? { batchSize } : {}) });
      expect(pulled.pull).toMatchObject({ doc_write_failures: 0, errors: [] });
      expect(await second.heldDocuments()).toEqual([]);
      expect(await snapshot(second)).toEqual(expected);
      if (!batchSize) expect(held).toEqual([]);
    });
  });
}
