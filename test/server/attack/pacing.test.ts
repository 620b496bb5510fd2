/**
 * Issue #26: a refused client's retry loop and remote queries cannot take the event loop from
 * everyone. The pacer's arithmetic is checked on a controlled clock (no timing); the held 429 on
 * a real node (its answer cannot come before the pause: a lower bound, not a speed test).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryPacer } from '../../../server/routes/query-pacer.js';
import { testNode } from '../node-helpers.js';

/** performance.now() under the test's control, and the pauses the pacer asked setTimeout for. */
function controlledClock() {
  let now = 1000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  const pauses: number[] = [];
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
    pauses.push(ms);
    fn();
    return 0 as never;
  }) as never);
  return { advance: (ms: number) => (now += ms), pauses };
}

afterEach(() => vi.restoreAllMocks());

describe('QueryPacer: remote queries share the event loop', () => {
  it('at share 50% a query pauses as long as its last stretch ran; two queries side by side add up on one clock', async () => {
    const clock = controlledClock();
    const pacer = new QueryPacer(0.5);
    const a = pacer.query();
    const b = pacer.query();
    clock.advance(40);
    await a.pause(); // a ran 40 ms: it rests 40 ms
    clock.advance(30);
    await b.pause(); // b ran 70 ms since it began: the clock, free at 1080, is pushed 70 ms on: 80 ms from now
    expect(clock.pauses).toEqual([40, 80]);
  });

  it('no pause lasts past the query deadline, nor past 250 ms; at share 100% only one turn of the loop is given', async () => {
    const clock = controlledClock();
    const paced = new QueryPacer(0.25).query(1000 + 150);
    clock.advance(100); // at 25%, 100 ms of work asks for a 300 ms rest
    await paced.pause();
    expect(clock.pauses).toEqual([50]); // the deadline is 50 ms away
    const capped = new QueryPacer(0.25).query();
    clock.advance(100);
    await capped.pause();
    expect(clock.pauses.at(-1)).toBe(250);
    const free = new QueryPacer(1).query();
    clock.advance(100);
    await free.pause();
    expect(clock.pauses).toHaveLength(2); // setImmediate, not a timer
  });

  it("a query's last stretch (alasql, the answer) is charged once it is done: the next query waits for it", async () => {
    const clock = controlledClock();
    const pacer = new QueryPacer(0.5);
    const first = pacer.query();
    clock.advance(60);
    first.done();
    first.done(); // charged once
    const next = pacer.query();
    await next.pause();
    expect(clock.pauses).toEqual([60]);
  });
});

describe('REFUSAL_PACE_MS: a 429 is held before it is sent', () => {
  it('a rate-limited login is answered 429 with its code, not before the pause; other answers are not held', { timeout: 60_000 }, async () => {
    const { node } = await testNode({ config: { refusalPaceMs: 300 }, adapter: 'memory' });
    const { url } = await node.start();
    const attempt = () => fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'nobody', password: 'wrong password' }) });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401); // the username's 5 failures
    const started = performance.now();
    const limited = await attempt();
    const waited = performance.now() - started;
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: 'too_many_requests', code: 'DS_AUTH_RATE_LIMITED' });
    expect(waited).toBeGreaterThanOrEqual(290);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
  });

  it('a full hashing gate (503 DS_AUTH_BUSY) is held too: a flood from many addresses meets that answer', { timeout: 60_000 }, async () => {
    const { node } = await testNode({ config: { refusalPaceMs: 300, authHashConcurrency: 1, authHashQueue: 0 }, adapter: 'memory' });
    const { url } = await node.start();
    const started = performance.now();
    const answers = await Promise.all(
      ['a1', 'a2', 'a3'].map(async (username) => {
        const res = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: 'wrong password' }) });
        return { status: res.status, body: (await res.json()) as { code?: string }, after: performance.now() - started };
      }),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) {
      expect(a.body.code).toBe('DS_AUTH_BUSY');
      expect(a.after).toBeGreaterThanOrEqual(290);
    }
  });
});
