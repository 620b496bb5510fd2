/**
 * What runs against the node during a hostile-load run, side by side for a fixed duration:
 * normal clients writing and reading at a steady rate, a flood of bad logins from one address,
 * the expensive queries of issue 26 (regex, LIKE, self-join), a /health prober, an RSS sampler,
 * and mid-run a new user's first login. Every answer is recorded (kind, status, time, code) and
 * every answer that is not a 2xx is checked against the node's error contract.
 */
import { performance } from 'node:perf_hooks';
import { call, contractBreach, refusalCode, type Answer } from '../../test/scenarios/hostile/client.js';
import { inBatches, loginToken, QUERY_ATTACKS, type HostileUser, type QueryAttack, type Seeded } from '../../test/scenarios/hostile/scenario.js';
import type { NodeChild } from './node-child.js';

export interface LoadSettings {
  /** how long the attack phase sends */
  durationMs: number;
  /** one operation (a write, then a read of it) per client every intervalMs */
  intervalMs: number;
  /** every n-th write of a client is a `_bulk` of 5 instead of a single create */
  bulkEvery: number;
  /** concurrent bad-login loops */
  badLogins: number;
  /** the address the bad logins come from (normal clients and the newcomer use 127.0.0.1) */
  attackFrom: string;
  /** concurrent loops of each expensive query (regex, like, join) */
  queryConcurrency: number;
  /** the deadline of a normal request and of a bad login */
  requestTimeoutMs: number;
  /** the deadline of an expensive query (long: the point is to see how long it takes) */
  attackTimeoutMs: number;
}

/** One answer, reduced to what the report needs. */
export interface Sample {
  status: number;
  ms: number;
  code: string | null;
  failure?: string;
}

export interface Recorded {
  writes: Sample[];
  reads: Sample[];
  /** GET /health every 100 ms, from the start until the last attack request is answered */
  health: Sample[];
  badLogins: Sample[];
  queries: Record<QueryAttack, Sample[]>;
  newcomer: Sample | null;
  /** the node's RSS in MB, every 200 ms until the last attack request is answered */
  rss: number[];
  /** acknowledged writes, and what reading each back after the run answered: 200, 404, or no answer in 2 minutes */
  acknowledged: number;
  readBack: number;
  missing: number;
  unanswered: number;
  /** non-2xx answers checked against the contract, and the breaches (kind: problem) */
  nonSuccess: number;
  breaches: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface NormalClient {
  user: HostileUser;
  token: string;
}

/** The normal clients, spread over the seeded users, each logged in once (a login is a password hash). */
export async function loginClients(origin: string, seeded: Seeded, count: number, log: (line: string) => void): Promise<NormalClient[]> {
  log(`logging in ${count} normal clients`);
  return inBatches(Array.from({ length: count }, (_, i) => seeded.users[i % seeded.users.length]), 4, async (user) => ({ user, token: await loginToken(origin, user.username, user.password, { timeoutMs: 120_000 }) }));
}

/**
 * One phase of the run: the normal clients, the prober and the sampler, and — when `attack` —
 * the bad logins, the expensive queries and the newcomer's login beside them. Without `attack`
 * it is the baseline: the same clients on the same machine just before, to read the attack's
 * figures against.
 */
export async function runWorkload(node: NodeChild, seeded: Seeded, clients: readonly NormalClient[], phase: LoadSettings, log: (line: string) => void, attack = true): Promise<Recorded> {
  const origin = node.origin;
  const settings = attack ? phase : { ...phase, badLogins: 0, queryConcurrency: 0 };
  const recorded: Recorded = { writes: [], reads: [], health: [], badLogins: [], queries: { regex: [], like: [], join: [] }, newcomer: null, rss: [], acknowledged: 0, readBack: 0, missing: 0, unanswered: 0, nonSuccess: 0, breaches: [] };
  const sample = (kind: string, answer: Answer): Sample => {
    // a timeout or a network error is not a refusal: it counts against the aims on answer times and errors
    if (answer.status !== 0 && (answer.status < 200 || answer.status >= 300)) {
      recorded.nonSuccess++;
      const breach = contractBreach(answer);
      if (breach) recorded.breaches.push(`${kind}: ${breach}`);
    }
    return { status: answer.status, ms: answer.ms, code: refusalCode(answer), ...(answer.failure ? { failure: answer.failure } : {}) };
  };

  const { attackerToken } = seeded;
  const acked: Array<{ id: string; tenant: string; token: string }> = [];

  const start = performance.now();
  const end = start + settings.durationMs;
  const running = () => performance.now() < end;
  log(`${attack ? 'attack' : 'baseline'}: ${settings.durationMs / 1000} s, ${clients.length} clients, ${settings.badLogins} bad logins from ${settings.attackFrom}, ${settings.queryConcurrency} of each expensive query`);

  const normal = clients.map(async ({ user, token }, c) => {
    await sleep((settings.intervalMs * c) / clients.length); // spread the ticks
    for (let i = 0; running(); i++) {
      const tick = performance.now();
      const options = { token, tenant: user.tenant, method: 'POST', timeoutMs: settings.requestTimeoutMs };
      const doc = (k: number) => ({ title: `client ${c} write ${i}.${k}`, body: 'x'.repeat(200), n: i });
      const bulk = i % settings.bulkEvery === settings.bulkEvery - 1;
      const answer = bulk ? await call(origin, '/api/private/docs/Note/_bulk', { ...options, body: { docs: [0, 1, 2, 3, 4].map(doc) } }) : await call(origin, '/api/private/docs/Note', { ...options, body: doc(0) });
      recorded.writes.push(sample('normal write', answer));
      if (answer.status === 201) {
        const body = answer.json as { _id?: string; docs?: Array<{ _id?: string }> };
        const ids = bulk ? (body.docs ?? []).map((d) => d._id) : [body._id];
        for (const id of ids) if (typeof id === 'string') acked.push({ id, tenant: user.tenant, token });
        const last = ids[ids.length - 1];
        if (typeof last === 'string') recorded.reads.push(sample('normal read', await call(origin, `/api/private/docs/Note/${encodeURIComponent(last)}`, { token, tenant: user.tenant, timeoutMs: settings.requestTimeoutMs })));
      }
      await sleep(tick + settings.intervalMs - performance.now());
    }
  });

  const badLogins = Array.from({ length: settings.badLogins }, async (_, w) => {
    for (let i = 0; running(); i++) {
      const body = { username: seeded.victim.username, password: `wrong guess ${w}.${i}` };
      recorded.badLogins.push(sample('bad login', await call(origin, '/login', { method: 'POST', body, from: settings.attackFrom, timeoutMs: settings.requestTimeoutMs })));
    }
  });

  const queries = (Object.keys(QUERY_ATTACKS) as QueryAttack[]).flatMap((kind) =>
    Array.from({ length: settings.queryConcurrency }, async () => {
      while (running()) recorded.queries[kind].push(sample(`${kind} query`, await QUERY_ATTACKS[kind](origin, attackerToken, settings.attackTimeoutMs)));
    }),
  );

  // /health every 100 ms whether or not the previous probe came back (a stalled node shows as a
  // pile of slow probes), until the last attack request is answered: the attack lasts that long
  const probes: Array<Promise<void>> = [];
  let probing = 0;
  const prober = setInterval(() => {
    if (probing >= 300) return; // stalled for 30 s: the probes in flight already show it
    probing++;
    probes.push(
      call(origin, '/health', { timeoutMs: settings.requestTimeoutMs, fresh: true }).then((answer) => {
        probing--;
        recorded.health.push(sample('/health', answer));
      }),
    );
  }, 100);
  const sampler = setInterval(() => {
    void node.rssMb().then((mb) => {
      if (mb !== null) recorded.rss.push(mb);
    });
  }, 200);

  const newcomer = (async () => {
    if (!attack) return;
    await sleep(settings.durationMs / 2);
    const answer = await call(origin, '/login', { method: 'POST', body: { username: seeded.newcomer.username, password: seeded.newcomer.password }, timeoutMs: settings.requestTimeoutMs, fresh: true }); // a new client: a connection of its own
    recorded.newcomer = sample('newcomer login', answer);
    log(`mid-run: the newcomer's first login answered ${answer.status} in ${Math.round(answer.ms)} ms`);
  })();

  const progress = setInterval(() => log(`${Math.round((performance.now() - start) / 1000)} s: ${recorded.writes.length} writes, ${recorded.badLogins.length} bad logins, ${Object.values(recorded.queries).reduce((n, list) => n + list.length, 0)} queries answered, rss ${recorded.rss.at(-1)?.toFixed(0) ?? '?'} MB`), 5000);
  try {
    // every loop ends by itself: it stops sending at the end and each request has a deadline
    await Promise.all([...normal, ...badLogins, ...queries, newcomer]);
  } finally {
    clearInterval(prober);
    clearInterval(progress);
    await Promise.all(probes);
    clearInterval(sampler);
  }
  log(`loops done ${((performance.now() - end) / 1000).toFixed(1)} s after the end of the run; reading back ${acked.length} acknowledged writes`);

  recorded.acknowledged = acked.length;
  // the node may still be working off abandoned requests (a client's timeout does not stop a hash): a long deadline
  const statuses = await inBatches(acked, 8, async ({ id, tenant, token }) => (await call(origin, `/api/private/docs/Note/${encodeURIComponent(id)}`, { token, tenant, timeoutMs: 120_000 })).status);
  recorded.readBack = statuses.filter((s) => s === 200).length;
  recorded.missing = statuses.filter((s) => s === 404).length;
  recorded.unanswered = statuses.length - recorded.readBack - recorded.missing;
  return recorded;
}
