/**
 * A class conflict policy through a real node (issue #28): two devices edit one document offline
 * and sync with the node in turn. The node sees the conflict first (the second push meets the
 * first) and resolves it there, once, by the class's policy; each device pulls the resolution,
 * and all three end with the same single revision and nothing listed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Class, createStack, type ClientStack, type ConflictResolvedEvent } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { tempDir, track, uniqueName } from '../../helpers/stack.js';
import { startNode, TOKEN, type TestNode } from './harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

async function liveLeaves(stack: ClientStack, id: string): Promise<string[]> {
  const leaves = await stack.storage.replication.openRevs(id, 'all', {});
  return leaves.flatMap((l) => ('ok' in l && !(l.ok as { _deleted?: boolean })._deleted ? [String(l.ok._rev)] : [])).sort();
}

describe('a conflict policy through the node', () => {
  it("'merge': the node merges the second push into the first, the devices pull one revision", async () => {
    const node = await startNode(await tempDir(), { role: 'admin' });
    nodes.push(node);
    await Class.create(node.stack, 'Job', 'class', '', { title: { type: 'string', mandatory: true }, status: { type: 'string' }, hours: { type: 'decimal' } }, { conflicts: 'merge' });
    const job = await node.stack.createDoc({ '~class': 'Job', title: 'Fix the boiler', status: 'open' });
    const resolvedOnNode: ConflictResolvedEvent[] = [];
    node.stack.on('conflict:resolved', (e: ConflictResolvedEvent) => resolvedOnNode.push(e));

    const devices = [0, 1].map(async () => track(await createStack({ name: uniqueName('job-device'), adapter: 'memory', plugins: browser })));
    const [a, b] = await Promise.all(devices);
    const sync = (device: typeof a) => device.sync({ remote: node.url, auth: { token: TOKEN } });
    await sync(a);
    await sync(b);

    // offline: the technician closes the job, the office books its hours
    await a.updateDoc(job._id, { status: 'done' });
    await b.updateDoc(job._id, { hours: 3.5 });
    await sync(a);
    await sync(b); // b's push meets a's on the node: resolved there
    expect(resolvedOnNode).toEqual([expect.objectContaining({ id: job._id, className: 'Job', policy: 'merge' })]);
    await sync(a);
    await sync(b);

    for (const stack of [node.stack, a, b]) {
      expect(await stack.getDocument(job._id)).toEqual(expect.objectContaining({ title: 'Fix the boiler', status: 'done', hours: 3.5 }));
      expect(await stack.conflicts()).toEqual([]);
    }
    const revs = await Promise.all([node.stack, a, b].map((s) => liveLeaves(s, job._id)));
    expect(revs[0]).toHaveLength(1);
    expect(revs[1]).toEqual(revs[0]);
    expect(revs[2]).toEqual(revs[0]);
  });
});
