import { afterEach, describe, expect, it } from 'vitest';
import { createStack, definePlugin, getApi, type ClientStack } from '../../../index.js';
import { patchesPlugin, registerPatchHandler, type Patch } from '../../../plugins/patches/index.js';
import { browser } from '../../../plugins.config.js';
import { memoryStack, rawDb, tempDir, track, uniqueName } from '../../helpers/stack.js';
import { startNode, TOKEN, type TestNode } from '../sync/harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

/** Sends every patch document of `from` to `to` as a replicator would: with its revision history. */
async function sendPatches(from: ClientStack, to: ClientStack): Promise<void> {
  const rows = await from.storage.range({ prefix: '~Patch-' });
  const docs = await Promise.all(rows.map((r) => rawDb(from).get(r.id, { revs: true })));
  const results = await to.ingest(docs);
  expect(results.every((r) => r.ok)).toBe(true);
}

const v1: Patch = { target: 'notes', version: '1.0.0', description: 'notes', changes: [{ kind: 'addClass', name: 'Note', schema: { title: { type: 'string' } } }] };

describe('patches travel with replication', () => {
  it('two replicas authoring the same patch offline converge on one document, applied once on each', async () => {
    const a = await memoryStack();
    const b = await memoryStack();
    const ra = await a.patches.apply(v1);
    const rb = await b.patches.apply(v1);
    expect(ra.by).not.toBe(rb.by);
    await sendPatches(a, b);
    await sendPatches(b, a);
    await a.patches.applyPending();
    await b.patches.applyPending();
    const [docA] = await a.storage.range({ prefix: '~Patch-' });
    const [docB] = await b.storage.range({ prefix: '~Patch-' });
    expect(docA).toEqual(docB); // same id, same winning revision
    expect(await a.storage.range({ prefix: '~Patch-' })).toHaveLength(1);
    expect(await a.patches.list()).toEqual([ra]);
    expect(await b.patches.list()).toEqual([rb]);
    expect(await b.patches.pending()).toEqual([]);
  });

  it('a patch received by ingest is applied on arrival, in order, then marked applied', async () => {
    const a = await memoryStack();
    const b = await memoryStack();
    await a.patches.apply(v1);
    await a.patches.apply({ target: 'notes', version: '1.1.0', changes: [{ kind: 'addAttribute', className: 'Note', name: 'body', type: 'string' }] });
    const applied: string[] = [];
    b.on('patch:applied', (r: { version: string }) => applied.push(r.version));
    await sendPatches(a, b);
    await b.patches.applyPending(); // waits for the pass the arrival started
    expect(applied).toEqual(['1.0.0', '1.1.0']);
    expect(Object.keys((await b.requireClass('Note')).schema)).toEqual(['title', 'body']);
    await b.createDoc({ '~class': 'Note', title: 't', body: 'b' });
  });

  it('a patch authored on one client reaches another through a server node, applied once on each (the node too), listed by the admin route', async () => {
    const server = await startNode(await tempDir(), { role: 'admin' });
    nodes.push(server);
    // every replica registers the code a migrate names (the node too: it applies patches like any peer)
    const slug = (doc: Record<string, unknown>) => (doc.slug === undefined ? { slug: String(doc.name).toLowerCase() } : undefined);
    const handlers = definePlugin({ name: 'notes-handlers', requires: ['patches'], setup: (kernel) => registerPatchHandler(kernel, 'notes.slug', slug) });
    registerPatchHandler(server.stack, 'notes.slug', slug);
    const open = async () => track(await createStack({ name: uniqueName('client'), adapter: 'memory', plugins: [...browser, handlers] }));
    const alice = await open();
    const bob = await open();

    await alice.patches.apply({ target: 'notes', version: '1.0.0', changes: [{ kind: 'addClass', name: 'Note', schema: { title: { type: 'string' }, slug: { type: 'string' } } }] });
    await alice.createDocs([{ '~class': 'Note', title: 'One' }, { '~class': 'Note', title: 'Two' }]);
    await alice.patches.apply({
      target: 'notes', version: '1.1.0', changes: [
        { kind: 'renameAttribute', className: 'Note', from: 'title', to: 'name' },
        { kind: 'migrate', className: 'Note', handler: 'notes.slug' },
      ],
    });
    await alice.sync({ remote: server.url, auth: { token: TOKEN } });
    const nodePatches = getApi(server.stack, patchesPlugin)!;
    await nodePatches.applyPending();
    await bob.sync({ remote: server.url, auth: { token: TOKEN } });
    await bob.patches.applyPending();

    const replicas = [await alice.patches.replica(), await nodePatches.replica(), await bob.patches.replica()];
    expect(new Set(replicas).size).toBe(3);
    for (const [i, patches] of [alice.patches, nodePatches, bob.patches].entries()) {
      const list = await patches.list();
      expect(list.map((r) => r.version)).toEqual(['1.0.0', '1.1.0']);
      expect(list.every((r) => r.by === replicas[i])).toBe(true);
      expect(await patches.pending()).toEqual([]);
    }
    for (const stack of [alice, server.stack, bob]) {
      const notes = await stack.findDocuments('Note');
      expect(notes.map((n) => [n.name, n.slug, n.title]).sort()).toEqual([['One', 'one', undefined], ['Two', 'two', undefined]]);
    }
  });
});
