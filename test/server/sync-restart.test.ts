/**
 * A node that goes away mid-pull must not take the client's process with it: PouchDB 9's
 * replicator asks the remote for `info()` after each batch without a catch, so a connection
 * refused there was an unhandled rejection (a Node app crashed). A real node behind a TCP proxy
 * (test/server/tcp-proxy.ts) is cut at the end of a pull batch — exactly when that `info()` is
 * sent — and stopped; then started again on the same data folder.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Class, createStack, DocstackError } from '../../index.js';
import { browser, type BrowserStack } from '../../plugins.config.js';
import { track, uniqueName } from '../helpers/stack.js';
import type { SyncStatus } from '../../plugins/sync/index.js';
import { login, testNode } from './node-helpers.js';
import { tcpProxy } from './tcp-proxy.js';

const DOCS = 2_000;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => void process.on('unhandledRejection', onUnhandled));
afterEach(() => void process.off('unhandledRejection', onUnhandled));

/** Lets pending rejections surface (an unhandled one is reported after the microtask queue drains). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('stack.sync when the node goes away mid-pull', () => {
  it('one-shot: a coded error and no unhandled rejection; a live sync retries through the restart and gets every document', async () => {
    const first = await testNode();
    const started = await first.node.start();
    const server = first.node.stack();
    await Class.create(server, 'Item', 'class', '', { title: { type: 'string', mandatory: true }, n: { type: 'integer' } });
    for (let i = 0; i < DOCS; i += 500) await server.createDocs(Array.from({ length: 500 }, (_, j) => ({ '~class': 'Item', title: `item ${i + j}`, n: i + j })));
    const proxy = await tcpProxy(started.port);
    const remote = `http://127.0.0.1:${proxy.port}/db/docstack`;
    const { token } = await login(started.url);
    const client = track(await createStack({ name: uniqueName('restart'), adapter: 'memory', plugins: browser })) as BrowserStack;

    // one-shot: cut at the end of the second pull batch, while the node is stopped
    const handle = client.sync({ remote, auth: { token }, batchSize: 100 });
    let batches = 0;
    let stopped: Promise<void> | null = null;
    handle.on('change', (info: { direction: string }) => {
      if (info.direction === 'pull' && ++batches === 2) stopped = proxy.cut().then(() => first.node.stop());
    });
    const failure = await handle.then(() => null, (err: unknown) => err);
    await stopped;
    expect(failure).toBeInstanceOf(DocstackError);
    expect((failure as DocstackError).code).toBe('DS_SYNC_NETWORK');
    expect((failure as DocstackError).cause).toBeDefined();
    expect(handle.status()).toMatchObject({ state: 'error', ok: false, error: failure });
    const partial = (await client.findDocuments('Item')).length;
    expect(partial).toBeLessThan(DOCS);

    // live, started while the node is down: offline (paused with the error), then it reconnects
    const live = client.sync({ remote, auth: { token }, live: true, maxRetryDelay: 300, batchSize: 200 });
    const offline = await new Promise<SyncStatus>((resolve) => live.on('status', (s: SyncStatus) => s.error && resolve(s)));
    expect(offline.error?.code).toBe('DS_SYNC_NETWORK');
    const second = await testNode({ dataDir: first.dataDir });
    const restarted = await second.node.start();
    await proxy.resume(restarted.port);
    await until(async () => (await client.findDocuments('Item')).length === DOCS);
    await until(async () => live.status().state === 'paused' && live.status().error === null);
    expect(live.status()).toMatchObject({ ok: true, error: null });
    expect(live.status().pulled).toBeGreaterThanOrEqual(DOCS - partial);
    live.cancel();
    expect(await live).toMatchObject({ cancelled: true, state: 'cancelled' });
    await proxy.cut();
    await settle();
    expect(unhandled).toEqual([]);
  }, 60_000);
});

async function until(check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
