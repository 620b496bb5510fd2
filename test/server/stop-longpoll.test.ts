import { describe, expect, it } from 'vitest';
import { ADMIN, login, testNode } from './node-helpers.js';

describe('stopping a node with a live client', () => {
  it('answers a waiting longpoll at once (an empty page) instead of holding stop() for its 5 s drain', async () => {
    const { node } = await testNode({ config: { port: 0 } });
    const { url } = await node.start();
    const { token } = await login(url, ADMIN.username, ADMIN.password);
    const since = (await (await fetch(`${url}/db/docstack`, { headers: { authorization: `Bearer ${token}` } })).json()) as { update_seq: number | string };
    let answered = 0;
    const poll = fetch(`${url}/db/docstack/_changes?feed=longpoll&since=${encodeURIComponent(String(since.update_seq))}&timeout=60000&heartbeat=10000`, { headers: { authorization: `Bearer ${token}` } })
      .then((res) => res.json())
      .then((body) => ((answered = Date.now()), body as { results: unknown[]; last_seq: unknown }));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the request is waiting on the node
    expect(answered).toBe(0);
    const began = Date.now();
    await node.stop();
    const stopped = Date.now();
    expect(await poll).toEqual({ results: [], last_seq: since.update_seq });
    expect(answered).toBeLessThanOrEqual(stopped);
    expect(stopped - began).toBeLessThan(2_500); // the drain bound is 5 s: well inside it
  }, 15_000);
});
