/**
 * Domains pushed to a real node (createServerNode, real login, its replication endpoint): a
 * domain made with a null id and one made with an explicit id, their relations added on a client,
 * pushed by stock PouchDB and by stack.sync, are accepted and stored by the node.
 */
import { describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../index.js';
import { Domain } from '../../plugins/domains/index.js';
import { memoryStack, rawDb } from '../helpers/stack.js';
import { ADMIN, login, testNode } from './node-helpers.js';
import { PouchDB } from '../plugins/sync/harness.js';

async function garage(stack: ClientStack, id: string | null) {
  const person = await Class.create(stack, 'Person', 'class', '', { name: { type: 'string' } });
  const car = await Class.create(stack, 'Car', 'class', '', { plate: { type: 'string' } });
  const owns = await Domain.create(stack, id, 'owns', 'domain', '1:N', person, car);
  const ann = await stack.createDoc({ '~class': 'Person', name: 'Ann' });
  const cars = await stack.createDocs([{ '~class': 'Car', plate: 'A-1' }, { '~class': 'Car', plate: 'B-2' }]);
  for (const c of cars) await owns.addRelation(ann, c._id);
  return { owns, ann, cars };
}

/** A stock PouchDB handle on the node's endpoint, logged in as the admin (who may push schema). */
async function nodeDb(url: string) {
  const { token } = await login(url);
  const fetchWithToken = (u: string, opts: { headers: Headers }) => {
    opts.headers.set('Authorization', `Bearer ${token}`);
    return (PouchDB as unknown as { fetch: (u: string, o: unknown) => Promise<unknown> }).fetch(u, opts);
  };
  return new PouchDB(`${url}/db/docstack`, { fetch: fetchWithToken } as never);
}

type NodeStack = ClientStack & { useDomain(name: string): Promise<Domain>; heldDocuments(): Promise<unknown[]> };

describe('relations of a domain pushed to a node', () => {
  for (const id of [null, 'garage-ownership']) {
    for (const by of ['stock PouchDB', 'stack.sync'] as const) {
      it(`Domain.create(stack, ${JSON.stringify(id)}, …), pushed by ${by}: the node stores the domain in the SPEC's shape and accepts its relations`, async () => {
        const { node } = await testNode();
        const { url } = await node.start();
        const client = await memoryStack();
        const { owns, ann, cars } = await garage(client, id);
        expect(owns.docId).toBe('domain-owns');
        if (by === 'stock PouchDB') {
          const result = await (PouchDB as unknown as { replicate(a: unknown, b: unknown): Promise<{ ok: boolean; doc_write_failures: number }> }).replicate(rawDb(client), await nodeDb(url));
          expect(result).toMatchObject({ ok: true, doc_write_failures: 0 });
        } else {
          const result = await client.sync({ remote: `${url}/db/docstack`, auth: ADMIN });
          expect(result.refused).toEqual([]);
        }
        const onNode = node.stack() as NodeStack;
        expect(await onNode.heldDocuments()).toEqual([]);
        expect(await onNode.storage.get('domain-owns')).toMatchObject({ '~class': 'domain', type: 'domain', id: id ?? 'owns', name: 'owns', relation: '1:N', sourceClass: 'Person', targetClass: 'Car' });
        const there = await onNode.useDomain('owns');
        expect(there.id).toBe(id ?? 'owns');
        const relations = await there.getRelations({}, ['sourceId', 'targetId']);
        expect(relations.map((r) => [r.sourceId, r.targetId]).sort()).toEqual(cars.map((c) => [ann._id, c._id]).sort());
        // the node enforces the domain it received: a car has one owner
        const bob = await onNode.createDoc({ '~class': 'Person', name: 'Bob' });
        await expect(there.addRelation(bob, cars[0]._id)).rejects.toMatchObject({ code: 'DS_RELATION_CARDINALITY' });
      }, 60_000);
    }
  }
});
