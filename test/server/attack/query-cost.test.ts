/**
 * Issue #26, High 1: the queries a logged-in user (not an admin) can send cost a bounded amount.
 * A real node (memory store, 127.0.0.1, port 0): the ReDoS `$regex`, the LIKE and join attacks,
 * statements nested past the parser's depth, and more concurrent queries than a user may run —
 * each answered with the right result or a coded JSON refusal. Outcomes are asserted, not times
 * (the times are bench/query-cost.ts's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../../index.js';
import { createUser } from '../../../server/auth/index.js';
import type { ServerNode } from '../../../server/node.js';
import { fileNode, login } from '../node-helpers.js';

const USER = { username: 'mallory', password: 'mallory password for tests' };
let node: ServerNode;
let url: string;
let stack: ClientStack;
let token: string;

type Answer = { status: number; body: Record<string, any> };
async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
const list = (selector: unknown) => call('GET', `/api/private/docs/Note?q=${encodeURIComponent(JSON.stringify(selector))}`);
const sql = (statement: string, params?: unknown) => call('POST', '/api/private/sql', { statement, ...(params !== undefined ? { params } : {}) });
const refusal = (status: number, code: string) => ({ status, body: { error: expect.any(String), reason: expect.any(String), code } });

beforeAll(async () => {
  node = await fileNode({ adapter: 'memory' });
  ({ url } = await node.start());
  stack = node.stack();
  await createUser(stack, USER.username, USER.password);
  token = (await login(url, USER.username, USER.password)).token;
  await Class.create(stack, 'Note', 'class', 'notes', { title: { type: 'string' }, n: { type: 'integer' } });
  await stack.createDocs([
    ...Array.from({ length: 100 }, (_, i) => ({ '~class': 'Note', title: `note ${i}`, n: i })),
    { '~class': 'Note', title: 'aaaa', n: 1000 },
    // ^(a+)+$ on V8's RegExp: ~6 s at 31 characters, doubling per character (this one: minutes)
    { '~class': 'Note', title: `${'a'.repeat(36)}!`, n: 1001 },
    { '~class': 'Note', title: 'a'.repeat(4000), n: 1002 },
  ] as never[]);
});
afterAll(() => node.stop());

describe('a remote query has a bounded cost', () => {
  it('REST $regex runs in linear time (the ReDoS pattern answers its matches); patterns RE2 cannot run, or too long, are refused 400', async () => {
    const found = await list({ title: { $regex: '^(a+)+$' } });
    expect(found.status).toBe(200);
    expect(found.body.docs.map((d: { n: number }) => d.n).sort()).toEqual([1000, 1002]);
    const either = await list({ $or: [{ title: { $regex: '^NOTE 1$' } }, { title: { $regex: 'e 9' } }] });
    expect(either.body.docs.map((d: { n: number }) => d.n).sort((a: number, b: number) => a - b)).toEqual([9, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
    const not = await list({ $nor: [{ title: { $regex: '^(note|a)' } }] });
    expect(not, JSON.stringify(not.body)).toMatchObject({ status: 200, body: { docs: [] } });
    expect(await list({ title: { $regex: '(a)\\1' } })).toMatchObject(refusal(400, 'DS_QUERY_INVALID'));
    expect(await list({ title: { $regex: '(?=a)' } })).toMatchObject(refusal(400, 'DS_QUERY_INVALID'));
    expect(await list({ title: { $regex: 'a'.repeat(1001) } })).toMatchObject(refusal(400, 'DS_QUERY_INVALID'));
  });

  it('SQL LIKE runs in linear time with its meaning kept; a pattern that does not compile is refused 400, not a 500', async () => {
    expect(await sql("SELECT n FROM Note WHERE title LIKE '%a%a%b'")).toMatchObject({ status: 200, body: { rows: [] } });
    expect((await sql("SELECT n FROM Note WHERE title LIKE '%A%a%a' ORDER BY n")).body.rows).toEqual([{ n: 1000 }, { n: 1002 }]);
    expect((await sql("SELECT n FROM Note WHERE title LIKE '[a]%!' ORDER BY n")).body.rows).toEqual([{ n: 1001 }]);
    expect((await sql("SELECT n FROM Note WHERE title LIKE 'note 1_' ORDER BY n")).body.rows).toHaveLength(10);
    expect(await sql("SELECT n FROM Note WHERE title LIKE '[a'")).toMatchObject(refusal(400, 'DS_SQL_PATTERN'));
  });

  it('a join past the budget is refused 422 DS_SQL_BUDGET before it runs; a join within it answers', async () => {
    const join4 = 'SELECT COUNT(*) AS c FROM Note a JOIN Note b ON a.n < b.n JOIN Note c ON b.n < c.n JOIN Note d ON c.n < d.n';
    const refused = await sql(join4);
    expect(refused).toMatchObject(refusal(422, 'DS_SQL_BUDGET'));
    expect(refused.body.reason).toMatch(/combinations/);
    expect(await sql('SELECT COUNT(*) AS c FROM Note a JOIN Note b ON a.n = b.n')).toMatchObject({ status: 200, body: { rows: [{ c: 103 }] } });
  });

  it('statements nested 10,000 deep, with 5,000 parentheses or 20,000 NOTs are refused 400 DS_SQL_TOO_COMPLEX (they were 500s)', async () => {
    expect(await sql(`SELECT n FROM Note WHERE ${'('.repeat(10_000)}n > 1${')'.repeat(10_000)}`)).toMatchObject(refusal(400, 'DS_SQL_TOO_COMPLEX'));
    const subqueries = `SELECT n FROM Note WHERE n IN ${'(SELECT n FROM Note WHERE n IN '.repeat(3000)}(1)${')'.repeat(3000)}`;
    expect(await sql(subqueries)).toMatchObject(refusal(400, 'DS_SQL_TOO_COMPLEX'));
    expect(await sql(`SELECT n FROM Note WHERE ${'('.repeat(5000)}n > 1${')'.repeat(5000)}`)).toMatchObject(refusal(400, 'DS_SQL_TOO_COMPLEX'));
    expect(await sql(`SELECT n FROM Note WHERE ${'NOT '.repeat(20_000)}n > 1`)).toMatchObject(refusal(400, 'DS_SQL_TOO_COMPLEX'));
    expect(await sql('SELECT n FROM Note WHERE NOT NOT (n = 5)')).toMatchObject({ status: 200, body: { rows: [{ n: 5 }] } });
  });

  it('a user runs at most 2 queries at once (the next is answered 429 DS_QUERY_BUSY at once); one held past the deadline is refused 422 DS_QUERY_TOO_COSTLY', async () => {
    // two listings held inside the node's read (a findCandidates tap that waits), each holding a slot
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached = 0;
    let arrived!: () => void;
    const bothIn = new Promise<void>((resolve) => (arrived = resolve));
    stack.hooks.findCandidates.tapPromise('test-hold', async (selector) => {
      if (!('hold' in selector)) return undefined;
      if (++reached === 2) arrived();
      await gate;
      return undefined;
    });
    const held = [list({ hold: 1 }), list({ hold: 2 })];
    await bothIn;
    const busy = await sql('SELECT n FROM Note WHERE n = 1');
    expect(busy).toMatchObject(refusal(429, 'DS_QUERY_BUSY'));
    expect(await list({ title: 'aaaa' })).toMatchObject(refusal(429, 'DS_QUERY_BUSY'));
    // a listing without q or sort reads one page: it takes no slot
    expect((await call('GET', '/api/private/docs/Note?limit=1')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past QUERY_DEADLINE_MS (1 s)
    release();
    for (const answer of await Promise.all(held)) expect(answer).toMatchObject(refusal(422, 'DS_QUERY_TOO_COSTLY'));
    // the slots are given back
    expect(await sql('SELECT n FROM Note WHERE n = 1')).toMatchObject({ status: 200, body: { rows: [{ n: 1 }] } });
  });
});
