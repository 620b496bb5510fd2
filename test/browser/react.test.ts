/**
 * docstack/react in Chromium (issue #31): a real React page (react-page.ts, React 19 and
 * react-dom) whose components use StackProvider, useStack, useLiveQuery, useDocument and
 * useSyncState over a stack on IndexedDB that syncs live with a server node: the node's writes
 * and the page's own appear in the rendered list, a document follows its updates and delete,
 * the sync's state is rendered, and unmounting leaves no listener on the stack.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { ADMIN, testNode } from '../server/node-helpers.js';
import { useHarness } from './use-harness.js';

const harness = useHarness(fileURLToPath(new URL('./react-page.ts', import.meta.url)));

describe('docstack/react in Chromium', () => {
  it('renders a live list that follows the node (sync) and the page\'s writes, one document, and the sync\'s state', async () => {
    const { node } = await testNode({ config: { port: 0, corsOrigins: [harness().origin] } });
    const { url } = await node.start();
    try {
      await Class.create(node.stack(), 'Job', 'class', '', { site: { type: 'string' }, status: { type: 'string' } });
      await node.stack().createDocs([{ '~class': 'Job', site: 'Depot', status: 'open' }, { '~class': 'Job', site: 'Harbour', status: 'done' }]);
      const tab = await harness().page(await harness().context());
      const { page } = tab;
      const items = () => page.locator('#jobs li').allTextContents();
      await tab.run('mount', { name: 'react-jobs' });
      await expect.poll(() => page.textContent('#stack')).toBe('react-jobs');
      await expect.poll(() => page.getAttribute('#jobs', 'data-loading')).toBe('false');
      // the class has not arrived yet: the query's first read fails, nothing is listed
      expect(await items()).toEqual([]);
      expect(await page.textContent('#sync')).toBe('no sync');

      await tab.run('syncLive', { remote: `${url}/db/docstack`, auth: ADMIN });
      await expect.poll(() => page.textContent('#sync'), { timeout: 15_000 }).toMatch(/^(active|paused) pulled=[1-9]/);
      // the query opened before its class existed reads again once the class's documents arrive
      await expect.poll(items, { timeout: 15_000 }).toEqual(['Depot']);

      // a write on the node reaches the rendered list through the live sync
      const [airport] = await node.stack().createDocs([{ '~class': 'Job', site: 'Airport', status: 'open' }]);
      await expect.poll(items, { timeout: 15_000 }).toEqual(['Airport', 'Depot']);

      // the page's own writes: one new row per tick, in sort order
      const [school] = await tab.run<string[]>('write', { docs: [{ '~class': 'Job', site: 'School', status: 'open' }, { '~class': 'Job', site: 'Farm', status: 'done' }] });
      await expect.poll(items).toEqual(['Airport', 'Depot', 'School']);

      // useDocument follows one document: its update, then its delete
      await tab.run('focus', { id: school });
      await expect.poll(() => page.textContent('#focus')).toBe('School: open');
      await tab.run('update', { id: school, changes: { status: 'done' } });
      await expect.poll(() => page.textContent('#focus')).toBe('School: done');
      await expect.poll(items).toEqual(['Airport', 'Depot']);
      await tab.run('remove', { id: school });
      await expect.poll(() => page.textContent('#focus')).toBe('none');
      await tab.run('focus', { id: airport._id });
      await expect.poll(() => page.textContent('#focus')).toBe('Airport: open');

      // the sync's state: cancelled once stopped
      await tab.run('stopSync');
      await expect.poll(() => page.textContent('#sync')).toMatch(/^cancelled/);

      // unmounting closes the live query (the stack's live queries' one listener) and useDocument's
      const listeners = await tab.run<{ before: number; after: number }>('unmount');
      expect(listeners.before - listeners.after).toBe(2);
      // page errors and React's own console.error (a warning it logs); Chromium's network lines
      // ("Failed to load resource": the replicator's first checkpoint read is a 404, a request
      // before the sync's login a 401) are the protocol's, not the page's
      expect(tab.console.filter((line) => line.startsWith('pageerror') || (line.startsWith('error') && !line.includes('Failed to load resource')))).toEqual([]);
    } finally {
      await node.stop();
    }
  }, 90_000);
});
