/**
 * The crash proof of the cloud queue: a child process writes ITEMS documents to its leveldb store
 * and flushes them in batches of 25 to this project's node, and is killed with SIGKILL twice in
 * the middle of a flush: once after the node stored a batch but before the child heard back (its
 * checkpoint is still before the batch: the batch must go again without duplicating), once while
 * a batch is on its way and before the node has it (the batch must not be lost). Restarted each
 * time, it flushes again. The node must then hold every document exactly once, at the revision
 * the device has: 0 lost, 0 duplicated.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createStack } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { ADMIN, userNode, watchOutput } from '../../server/node-helpers.js';
import { tempDir, uniqueName } from '../../helpers/stack.js';
import { bundled } from '../../helpers/bundled.js';

/** as in crash-child.ts (importing it would run it) */
const ITEMS = 200;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const childScript = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

describe('the cloud queue survives SIGKILL in the middle of a flush', () => {
  it('loses and duplicates no document', async () => {
    const { node, url } = await userNode({ username: 'someone', password: 'someone password' }, { adapter: 'memory' });
    try {
      // a proxy in front of the node: the 3rd _bulk_docs reaches the node and then the child is
      // killed before the answer; the 5th is held and the child killed before the node gets it
      let child: ChildProcess | null = null;
      const killAt = new Map([[3, 'after the node stored it'], [5, 'before the node got it']]);
      const killed: string[][] = [];
      const batches: string[][] = [];
      const kill = async () => {
        child!.kill('SIGKILL');
        await new Promise((r) => child!.once('exit', r));
      };
      const proxy = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', async () => {
          const isBulk = req.method === 'POST' && req.url!.endsWith('/_bulk_docs');
          const ids = isBulk ? (JSON.parse(body) as { docs: Array<{ _id: string }> }).docs.map((d) => d._id) : [];
          const when = isBulk ? killAt.get(batches.push(ids)) : undefined;
          if (when === 'before the node got it') {
            killed.push(ids);
            await kill();
            return void res.destroy();
          }
          const answer = await fetch(new URL(req.url!, url), { method: req.method, headers: { 'content-type': 'application/json', authorization: String(req.headers.authorization) }, body: body || undefined });
          const text = await answer.text();
          if (when === 'after the node stored it') {
            killed.push(ids);
            await kill();
            return void res.destroy();
          }
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const target = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/db/docstack`);
      target.username = ADMIN.username;
      target.password = ADMIN.password;

      const dataDir = await tempDir();
      const name = uniqueName('queue-crash');
      const script = await bundled(childScript); // starts ~1.4 s sooner than `--import tsx`
      const start = (mode: 'write' | 'flush') =>
        watchOutput((child = spawn(process.execPath, [script, dataDir, name, mode], { cwd: root, env: { ...process.env, CLOUDANT_URL: target.href, CLOUDANT_APIKEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] })));

      const first = start('write');
      expect(await first.exited, first.output()).toBeNull(); // killed
      expect(first.output()).toContain('written');
      expect(first.output()).not.toContain('done');
      const remote = node.stack();
      const onNodeAtKill = (await remote.storage.range({ prefix: 'Item-' })).length;
      expect(onNodeAtKill).toBeGreaterThan(0);
      expect(onNodeAtKill).toBeLessThan(ITEMS);

      const second = start('flush');
      expect(await second.exited, second.output()).toBeNull(); // killed again
      const third = start('flush');
      expect(await third.exited, third.output()).toBe(0);
      expect(third.output()).toMatch(/done \{"sent":\d+,"batches":\d+,"pending":0\}/);
      proxy.close();
      // each batch cut off was the first one sent after the restart: no checkpoint had moved past it
      expect(killed).toHaveLength(2);
      expect(batches[3]).toEqual(killed[0]);
      expect(batches[5]).toEqual(killed[1]);

      const items = await remote.storage.range({ prefix: 'Item-', includeDocs: true });
      const numbers = new Set(items.map((row) => row.doc.n));
      const lost = ITEMS - numbers.size;
      const duplicated = items.length - numbers.size;
      expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });

      const device = await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser });
      try {
        const local = await device.storage.range({ prefix: 'Item-' });
        expect(items.map((r) => [r.id, r.rev])).toEqual(local.map((r) => [r.id, r.rev]));
      } finally {
        await device.close();
      }
    } finally {
      await node.stop();
    }
  }, 60_000);
});
