/**
 * Live queries in Chromium (issue #31): the real bundle (dist/browser/docstack.js) on IndexedDB,
 * a live query following the page's own writes and, through a live sync, a server node's —
 * one new result per tick, each equal to what findDocuments answers.
 */
import { describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { ADMIN, testNode } from '../server/node-helpers.js';
import { useHarness } from './use-harness.js';

const harness = useHarness();

type Row = { _id: string; title?: string; n?: number };

describe('stack.live in Chromium (IndexedDB, the browser bundle)', () => {
  it('follows the page\'s writes and a node\'s through a live sync, sorted and windowed, until closed', async () => {
    const { node } = await testNode({ config: { port: 0, corsOrigins: [harness().origin] } });
    const { url } = await node.start();
    try {
      await Class.create(node.stack(), 'Note', 'class', '', { title: { type: 'string' }, n: { type: 'integer' } });
      await node.stack().createDocs([{ '~class': 'Note', title: 'node 1', n: 1 }]);
      const tab = await harness().page(await harness().context());
      const name = 'live-notes';
      await tab.run('syncOnce', { name, remote: `${url}/db/docstack`, auth: ADMIN });
      const first = await tab.run<Row[]>('liveOpen', { name, key: 'top', className: 'Note', selector: { n: { $gte: 1 } }, options: { sort: [{ n: 'desc' }], limit: 2, fields: ['title', 'n'] } });
      expect(first.map((d) => d.title)).toEqual(['node 1']);

      // three documents in one call: one new result
      await tab.run('write', { name, docs: [2, 3, 0].map((n) => ({ '~class': 'Note', title: `page ${n}`, n })) });
      await expect.poll(async () => (await tab.run<Row[][]>('liveSeen', { key: 'top' })).length).toBe(2);
      expect((await tab.run<Row[][]>('liveSeen', { key: 'top' }))[1].map((d) => d.title)).toEqual(['page 3', 'page 2']);

      // the node's write arrives through the live sync (stack.ingest) and takes the top place
      await tab.run('syncLive', { name, remote: `${url}/db/docstack`, auth: ADMIN });
      const [top] = await node.stack().createDocs([{ '~class': 'Note', title: 'node 9', n: 9 }]);
      await tab.run('waitFor', { name, ids: [top._id] });
      await expect.poll(async () => (await tab.run<Row[][]>('liveSeen', { key: 'top' })).at(-1)!.map((d) => d.title)).toEqual(['node 9', 'page 3']);
      // what the page's findDocuments answers, sorted and cut the same way
      const all = await tab.run<Row[]>('find', { name, className: 'Note' });
      const expected = all.filter((d) => d.n! >= 1).sort((a, b) => b.n! - a.n!).slice(0, 2).map((d) => ({ _id: d._id, title: d.title, n: d.n }));
      expect((await tab.run<Row[][]>('liveSeen', { key: 'top' })).at(-1)).toEqual(expected);

      // closed: the node's next write changes nothing
      const count = (await tab.run<Row[][]>('liveSeen', { key: 'top' })).length;
      await tab.run('liveClose', { key: 'top' });
      const [later] = await node.stack().createDocs([{ '~class': 'Note', title: 'node 10', n: 10 }]);
      await tab.run('waitFor', { name, ids: [later._id] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await tab.run<Row[][]>('liveSeen', { key: 'top' })).toHaveLength(count);
      await tab.run('close', { name });
      expect(tab.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
    } finally {
      await node.stop();
    }
  }, 90_000);
});
