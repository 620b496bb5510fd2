/**
 * A class conflict policy through a real node (issue #28): two devices edit one document offline
 * and sync with the node in turn. The second device's sync meets the first's edit and the
 * class's policy resolves the conflict where it meets it: on the node when that device's push
 * lands before its pull brings the first edit, on the device when its pull does (PouchDB runs a
 * sync's two directions at once: usually both, under load either alone). The policy is
 * deterministic, so both make the same revision; each side pulls it, and all three end with the
 * same single revision and nothing listed.
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
  it("'merge': the second device's sync meets the first's edit, resolved by the policy into one revision wherever it meets it; all end with it", async () => {
    const node = await startNode(await tempDir(), { role: 'admin' });
    nodes.push(node);
    await Class.create(node.stack, 'Job', 'class', '', { title: { type: 'string', mandatory: true }, status: { type: 'string' }, hours: { type: 'decimal' } }, { conflicts: 'merge' });
    const job = await node.stack.createDoc({ '~class': 'Job', title: 'Fix the boiler', status: 'open' });
    const resolved: Array<ConflictResolvedEvent & { on: string }> = [];
    const watch = (stack: ClientStack, on: string) => stack.on('conflict:resolved', (e: ConflictResolvedEvent) => resolved.push({ ...e, on }));
    watch(node.stack, 'node');

    const devices = [0, 1].map(async () => track(await createStack({ name: uniqueName('job-device'), adapter: 'memory', plugins: browser })));
    const [a, b] = await Promise.all(devices);
    watch(a, 'a');
    watch(b, 'b');
    const sync = (device: typeof a) => device.sync({ remote: node.url, auth: { token: TOKEN } });
    await sync(a);
    await sync(b);

    // offline: the technician closes the job, the office books its hours
    await a.updateDoc(job._id, { status: 'done' });
    await b.updateDoc(job._id, { hours: 3.5 });
    await sync(a);
    await sync(b); // b's sync meets a's edit: resolved on the node (b's push first) and/or on b (its pull)
    expect(resolved.length).toBeGreaterThan(0);
    for (const event of resolved) expect(event).toMatchObject({ id: job._id, className: 'Job', policy: 'merge', on: expect.stringMatching(/^(node|b)$/) });
    // the policy is deterministic: wherever it ran, it made the same revision
    expect(new Set(resolved.map((e) => e.rev)).size).toBe(1);
    const count = resolved.length;
    await sync(a);
    await sync(b);

    expect(resolved).toHaveLength(count); // nobody resolves it again
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
