/**
 * Issue 26, the load scenario in small (bench/hostile-load.ts runs it at the sizes and
 * measures the times): a real node on port 0, normal clients of three tenants writing while a
 * burst of concurrent bad logins (from another address) and the regex, LIKE and self-join
 * queries run. Outcomes only, no timings: every acknowledged write is stored, the node still
 * answers, every refusal is a coded JSON answer with a 4xx/429/503, a new user's first login
 * during the flood succeeds, and the attacked user gets in once the limiter's window has passed.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { call, closeAgents, contractBreach, type Answer } from '../../scenarios/hostile/client.js';
import { loginToken, QUERY_ATTACKS, seedHostile, type AttackSizes, type QueryAttack } from '../../scenarios/hostile/scenario.js';
import { ADMIN, testNode } from '../node-helpers.js';

/** Small inputs: the queries cost milliseconds on the unfixed node too, so the test stays quick. */
const SIZES: AttackSizes = { regexChars: 20, likeChars: 300, notes: 20 };
/** more than the limiter's 5 failures per user: what the burst tests is that the rest is refused, not hashed */
const BAD_LOGINS = 10;
const WRITES_PER_CLIENT = 5;
/** Where the bad logins come from: another loopback address, so the flood is not the normal clients' address. */
const ATTACKER_ADDRESS = '127.0.0.66';
/** Past the login-failure window (15 minutes, server/auth/service.ts), within a token's life (JWT_TTL, 1 hour). */
const LATER_MS = 16 * 60_000;

afterEach(() => vi.useRealTimers());
afterAll(() => closeAgents());

interface Outcome {
  what: string;
  answer: Answer;
}

describe('the node under hostile load (issue 26)', () => {
  it('keeps every acknowledged write, answers every refusal with a code, and lets a new user and then the victim log in', async () => {
    // the node's clock reads Date.now at each call, so moving the wall clock (below) moves it too
    const { node } = await testNode({ clock: () => Date.now() });
    const { url } = await node.start();
    const admin = await loginToken(url, ADMIN.username, ADMIN.password);
    const seeded = await seedHostile(url, admin, { sizes: SIZES, perTenant: 1 });
    const clients = await Promise.all(seeded.users.map(async (user) => ({ user, token: await loginToken(url, user.username, user.password) })));

    const outcomes: Outcome[] = [];
    const acknowledged: Array<{ id: string; tenant: string; token: string }> = [];
    const record = (what: string, answer: Answer) => {
      outcomes.push({ what, answer });
      return answer;
    };

    const normal = clients.map(async ({ user, token }, c) => {
      for (let i = 0; i < WRITES_PER_CLIENT; i++) {
        const doc = (k: number) => ({ title: `client ${c} write ${i}.${k}`, n: i });
        const bulk = i === WRITES_PER_CLIENT - 1;
        const options = { token, tenant: user.tenant, method: 'POST' };
        const answer = record('normal write', bulk ? await call(url, '/api/private/docs/Note/_bulk', { ...options, body: { docs: [doc(0), doc(1), doc(2)] } }) : await call(url, '/api/private/docs/Note', { ...options, body: doc(0) }));
        if (answer.status !== 201) continue;
        const body = answer.json as { _id?: string; docs?: Array<{ _id?: string }> };
        for (const id of bulk ? (body.docs ?? []).map((d) => d._id) : [body._id]) if (typeof id === 'string') acknowledged.push({ id, tenant: user.tenant, token });
      }
    });
    const badLogins = Array.from({ length: BAD_LOGINS }, async (_, i) => {
      record('bad login', await call(url, '/login', { method: 'POST', body: { username: seeded.victim.username, password: `wrong guess ${i}` }, from: ATTACKER_ADDRESS }));
    });
    const queries = (Object.keys(QUERY_ATTACKS) as QueryAttack[]).map(async (kind) => record(`${kind} query`, await QUERY_ATTACKS[kind](url, seeded.attackerToken, 60_000)));
    const newcomer = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 50)); // once the flood is under way
      return record('newcomer login', await call(url, '/login', { method: 'POST', body: { username: seeded.newcomer.username, password: seeded.newcomer.password }, fresh: true }));
    })();
    await Promise.all([...normal, ...badLogins, ...queries, newcomer]);

    // the node still answers, and nothing answered outside the contract
    expect((await call(url, '/health')).status).toBe(200);
    const breaches = outcomes.map(({ what, answer }) => [what, contractBreach(answer)] as const).filter(([, breach]) => breach !== null);
    expect(breaches).toEqual([]);

    // the normal clients were served, and what was acknowledged is stored
    const writes = outcomes.filter((o) => o.what === 'normal write');
    expect(writes.map((o) => o.answer.status)).toEqual(writes.map(() => 201));
    expect(acknowledged).toHaveLength(clients.length * (WRITES_PER_CLIENT - 1 + 3));
    for (const { id, tenant, token } of acknowledged) {
      expect((await call(url, `/api/private/docs/Note/${encodeURIComponent(id)}`, { token, tenant })).status, id).toBe(200);
    }

    // each expensive query was done or refused with a code (the contract check above); each bad login refused (401 or 429)
    expect(outcomes.filter((o) => o.what.endsWith('query'))).toHaveLength(3);
    const badStatuses = outcomes.filter((o) => o.what === 'bad login').map((o) => o.answer.status);
    expect(badStatuses.every((s) => s === 401 || s === 429), String(badStatuses)).toBe(true);

    // a new user's first login during the flood: let in (the flood came from another address)
    expect((await newcomer).status).toBe(200);

    // a burst's attempts past its address's places in the hashing gate were refused unchecked
    // (429, no failure counted): the attacker completes the username's failures one by one
    for (let i = 0; i < 6; i++) {
      const more = await call(url, '/login', { method: 'POST', body: { username: seeded.victim.username, password: `wrong again ${i}` }, from: ATTACKER_ADDRESS });
      if (more.status === 429) break;
      expect(more.status).toBe(401);
    }
    // the victim's own password is refused while the limiter holds, with a code and Retry-After…
    const locked = await call(url, '/login', { method: 'POST', body: { username: seeded.victim.username, password: seeded.victim.password } });
    expect(locked.status).toBe(429);
    expect(locked.json).toMatchObject({ error: 'too_many_requests', code: 'DS_AUTH_RATE_LIMITED', reason: expect.any(String) });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // …and works once the window has passed (the wall clock moved, not waited for)
    vi.setSystemTime(Date.now() + LATER_MS);
    const token = await loginToken(url, seeded.victim.username, seeded.victim.password);
    expect((await call(url, '/api/private/docs/Note?limit=1', { token, tenant: seeded.victim.tenant })).status).toBe(200);
    // ~25 password hashes (users, logins, the flood) at 0.7 s of scrypt each, four at a time, on a
    // shared 2-core machine: a bound against a hang, not a timing
  }, 60_000);
});
