/**
 * `stack.sync` from a Chromium page (IndexedDB, the real bundle) with a real server node on
 * another origin: CORS with credentials for the page's origin, a cookie session from the node's
 * login, live sync, and writes made while the node is stopped that arrive after it restarts.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/stack.js';
import { ADMIN, testNode } from '../server/node-helpers.js';
import { useHarness } from './use-harness.js';

const harness = useHarness();

async function node(dataDir: string, port = 0) {
  const { node } = await testNode({ dataDir, config: { port, corsOrigins: [harness().origin] } });
  const { url, port: bound } = await node.start();
  return { node, url, port: bound, remote: `${url}/db/docstack` };
}

async function until(probe: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('stack.sync in Chromium with a server node on another origin', () => {
  it('logs in (cookie session), syncs both ways, goes live, and catches up after the node was stopped', async () => {
    const dataDir = await tempDir();
    let n = await node(dataDir);
    const { Class } = await import('docstack/browser');
    await Class.create(n.node.stack(), 'Note', 'class', '', { text: { type: 'string', mandatory: true, maxLength: 100 }, n: { type: 'integer' } });
    const [fromNode] = await n.node.stack().createDocs([{ '~class': 'Note', text: 'from the node', n: 1 }]);

    const context = await harness().context();
    const tab = await harness().page(context);
    const name = 'synced';
    // a wrong password is refused with the sync plugin's code
    await expect(tab.run('syncOnce', { name, remote: n.remote, auth: { username: ADMIN.username, password: 'wrong' } })).rejects.toThrow(/DS_SYNC_LOGIN/);

    // one round both ways: the class and the node's note arrive; the page's note goes up
    const first = await tab.run<{ pulled: number }>('syncOnce', { name, remote: n.remote, auth: ADMIN });
    expect(first.pulled).toBeGreaterThan(0);
    // the session is the node's httpOnly cookie, kept by the browser (the page never sees the token)
    expect((await context.cookies(n.url)).find((c) => c.name === 'jwtToken')).toMatchObject({ httpOnly: true });
    expect(await tab.run('find', { name, className: 'Note' })).toEqual([expect.objectContaining({ _id: fromNode._id, text: 'from the node' })]);
    const [mine] = await tab.run<string[]>('write', { name, docs: [{ '~class': 'Note', text: 'from the page', n: 2 }] });
    await tab.run('syncOnce', { name, remote: n.remote, auth: ADMIN });
    expect(await n.node.stack().getDocument(mine)).toMatchObject({ text: 'from the page' });

    // live: each side's new writes reach the other
    await tab.run('syncLive', { name, remote: n.remote, auth: ADMIN });
    const [live] = await n.node.stack().createDocs([{ '~class': 'Note', text: 'live from the node', n: 3 }]);
    await tab.run('waitFor', { name, ids: [live._id] });
    const [liveUp] = await tab.run<string[]>('write', { name, docs: [{ '~class': 'Note', text: 'live from the page', n: 4 }] });
    await until(async () => (await n.node.stack().getDocument(liveUp)) !== null, 'the live write on the node');

    // the node stops; the page keeps working offline; the node restarts on the same port and store
    const port = n.port;
    await n.node.stop();
    const offline = await tab.run<string[]>('write', { name, docs: [1, 2, 3].map((i) => ({ '~class': 'Note', text: `offline ${i}`, n: 10 + i })) });
    n = await node(dataDir, port);
    await until(async () => (await Promise.all(offline.map((id) => n.node.stack().getDocument(id)))).every(Boolean), 'the offline writes on the restarted node');
    const [after] = await n.node.stack().createDocs([{ '~class': 'Note', text: 'after the restart', n: 20 }]);
    await tab.run('waitFor', { name, ids: [after._id] });
    expect((await n.node.stack().findDocuments('Note')).length).toBe(8);
    expect((await tab.run<unknown[]>('find', { name, className: 'Note' })).length).toBe(8);
    await tab.run('close', { name });
  }, 60_000);

  it('a node that does not list the page origin in CORS_ORIGINS cannot be reached from the page', async () => {
    const { node: closed } = await testNode({ config: { port: 0 } });
    const { url } = await closed.start();
    const tab = await harness().page(await harness().context());
    await expect(tab.run('syncOnce', { name: 'no-cors', remote: `${url}/db/docstack`, auth: ADMIN })).rejects.toThrow(/Failed to fetch/);
    await tab.run('close', { name: 'no-cors' });
  });
});
