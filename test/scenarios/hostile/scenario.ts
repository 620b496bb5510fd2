/**
 * The hostile-load scenario of issue 26, shared by its CI test (test/server/attack/load.test.ts,
 * small sizes) and its bench (bench/hostile-load.ts, the issue's sizes): the schema, the tenants
 * and users made over HTTP as an operator would, and the attack requests. No vitest import.
 */
import { call, type Answer, type CallOptions } from './client.js';

export const TENANTS = ['t1', 't2', 't3'] as const;
/** the tenant the query attacker belongs to, and where the attack's documents are */
export const ATTACK_TENANT = 't1';
export const NOTE_SCHEMA = { title: { type: 'string', mandatory: true }, body: { type: 'string' }, n: { type: 'integer' } };

/** How large the attack's inputs are. The issue's probe: a 31-character title for the regex, 4,000 for LIKE, ~100 documents. */
export interface AttackSizes {
  regexChars: number;
  likeChars: number;
  notes: number;
}
export const ISSUE_SIZES: AttackSizes = { regexChars: 31, likeChars: 4000, notes: 100 };

/** Catastrophic backtracking: `(a+)+` tries every split of the a's before `$` fails on the last character. */
export const REGEX_SELECTOR = { title: { $regex: '^(a+)+$' } };
export const REGEX_PATH = `/api/private/docs/Note?limit=10&q=${encodeURIComponent(JSON.stringify(REGEX_SELECTOR))}`;
/** A LIKE with several wildcards, matched by backtracking (≈ n³ over a title of n a's and no b). */
export const LIKE_STATEMENT = "SELECT _id FROM Note WHERE title LIKE '%a%a%b'";
/** Four copies of the class, no join condition: rows read multiply per table (100⁴ pairs). */
export const JOIN_STATEMENT = 'SELECT COUNT(*) AS n FROM Note AS a, Note AS b, Note AS c, Note AS d';

/** The attack's documents: one regex bait (n−1 a's and a "!"), one long LIKE bait, the rest ordinary. */
export function attackNotes(sizes: AttackSizes): Array<Record<string, unknown>> {
  const notes: Array<Record<string, unknown>> = [
    { title: `${'a'.repeat(sizes.regexChars - 1)}!`, n: 0 },
    { title: 'a'.repeat(sizes.likeChars), n: 1 },
  ];
  for (let n = 2; n < sizes.notes; n++) notes.push({ title: `note ${n} of the attack tenant`, body: 'some text', n });
  return notes;
}

/** Throws with the answer when it is not the expected status: setup steps must not fail quietly. */
export function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.failure ?? answer.text.slice(0, 300)}`);
  return answer;
}

/** POST /login; the Bearer token of the cookie it sets. */
export async function loginToken(origin: string, username: string, password: string, options: Pick<CallOptions, 'from' | 'timeoutMs'> = {}): Promise<string> {
  const answer = expectStatus(await call(origin, '/login', { ...options, method: 'POST', body: { username, password } }), 200, `login of ${username}`);
  const cookie = ([] as string[]).concat(answer.headers['set-cookie'] ?? []).join(';');
  const token = /jwtToken=([^;]+)/.exec(cookie)?.[1];
  if (!token) throw new Error(`login of ${username}: no jwtToken cookie`);
  return token;
}

export interface HostileUser {
  username: string;
  password: string;
  tenant: string;
}

export interface SeedOptions {
  sizes: AttackSizes;
  /** the normal users: `perTenant` in each of TENANTS */
  perTenant: number;
  /** called between steps (a bench prints progress) */
  log?: (line: string) => void;
  /** how many setup requests at a time (each user creation and login is a password hash) */
  concurrency?: number;
}

export interface Seeded {
  users: HostileUser[];
  /** a member of ATTACK_TENANT who sends the expensive queries */
  attacker: HostileUser;
  /** the attacker's Bearer token (a login is a password hash: one is enough) */
  attackerToken: string;
  /** a member of ATTACK_TENANT whose password the bad logins guess */
  victim: HostileUser;
  /** a user who has never logged in: the first login during the flood */
  newcomer: HostileUser;
}

/** Runs `task` over `items`, `limit` at a time. */
export async function inBatches<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Over HTTP with the admin's token: the Note class in the three tenants, the users, and the
 * attack's documents in ATTACK_TENANT (written by the attacker, as a member would).
 */
export async function seedHostile(origin: string, adminToken: string, options: SeedOptions): Promise<Seeded> {
  const log = options.log ?? (() => undefined);
  const admin = { token: adminToken };
  expectStatus(await call(origin, '/api/private/create-class/Note', { ...admin, method: 'POST', body: { description: 'notes', schema: NOTE_SCHEMA, options: { tenants: [...TENANTS] } } }), 201, 'create-class Note');
  const user = (username: string, tenant: string): HostileUser => ({ username, password: `${username} password`, tenant });
  const users = TENANTS.flatMap((tenant) => Array.from({ length: options.perTenant }, (_, i) => user(`${tenant}-user${i}`, tenant)));
  const attacker = user('attacker', ATTACK_TENANT);
  const victim = user('victim', ATTACK_TENANT);
  const newcomer = user('newcomer', TENANTS[1]);
  log(`creating ${users.length + 3} users in ${TENANTS.length} tenants`);
  await inBatches([...users, attacker, victim, newcomer], options.concurrency ?? 4, async (u) => {
    const body = { username: u.username, password: u.password, tenants: [u.tenant] };
    expectStatus(await call(origin, '/api/private/users', { ...admin, method: 'POST', body, timeoutMs: 120_000 }), 201, `create user ${u.username}`);
  });
  const attackerToken = await loginToken(origin, attacker.username, attacker.password, { timeoutMs: 120_000 });
  const notes = attackNotes(options.sizes);
  log(`writing ${notes.length} attack documents in tenant ${ATTACK_TENANT}`);
  expectStatus(await call(origin, '/api/private/docs/Note/_bulk', { token: attackerToken, tenant: ATTACK_TENANT, method: 'POST', body: { docs: notes } }), 201, 'the attack documents');
  return { users, attacker, attackerToken, victim, newcomer };
}

/** The three expensive queries of the attack, sent by a member of ATTACK_TENANT. */
export const QUERY_ATTACKS = {
  regex: (origin: string, token: string, timeoutMs: number) => call(origin, REGEX_PATH, { token, tenant: ATTACK_TENANT, timeoutMs }),
  like: (origin: string, token: string, timeoutMs: number) => call(origin, '/api/private/sql', { token, tenant: ATTACK_TENANT, method: 'POST', body: { statement: LIKE_STATEMENT }, timeoutMs }),
  join: (origin: string, token: string, timeoutMs: number) => call(origin, '/api/private/sql', { token, tenant: ATTACK_TENANT, method: 'POST', body: { statement: JOIN_STATEMENT }, timeoutMs }),
} as const;
export type QueryAttack = keyof typeof QUERY_ATTACKS;
