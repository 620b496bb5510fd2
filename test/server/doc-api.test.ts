/**
 * The HTTP document API (/api/private/docs) and POST /api/private/sql on a real node (memory
 * store, 127.0.0.1, real logins): CRUD through the pipeline with the caller's session, listing
 * with selector / fields / sort / cursor pages, refusals with the engine's code and path, and the
 * node's one authorization check and visibility rules on every route; `_bulk` with an
 * Idempotency-Key (the crash half is bulk-crash.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../index.js';
import { createUser } from '../../server/auth/index.js';
import type { ServerNode } from '../../server/node.js';
import { ApiWrite } from '../../server/routes/api-access.js';
import { fileNode, login } from './node-helpers.js';

const USER = { username: 'uma', password: 'uma password for tests' };
let node: ServerNode;
let url: string;
let stack: ClientStack;
let admin: string;
let user: string;

type Answer = { status: number; body: any };
async function call(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}
const docs = (token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(token, method, `/api/private/docs${path}`, body, headers);

beforeAll(async () => {
  node = await fileNode({ adapter: 'memory' });
  ({ url } = await node.start());
  stack = node.stack();
  await createUser(stack, USER.username, USER.password);
  admin = (await login(url)).token;
  user = (await login(url, USER.username, USER.password)).token;
  await Class.create(stack, 'Customer', 'class', 'customers', {
    email: { type: 'string', primaryKey: true, maxLength: 100 },
    name: { type: 'string', mandatory: true, maxLength: 40 },
    age: { type: 'integer', min: 0 },
  });
  await Class.create(stack, 'Vault', 'class', 'sealed values', { label: { type: 'string' }, pin: { type: 'string', encrypted: true } });
});
afterAll(() => node.stop());

describe('documents over HTTP', () => {
  it('creates, reads, changes and soft-deletes through the pipeline, with the caller as the session', async () => {
    const sessions: unknown[] = [];
    stack.hooks.validate.tap('test-session-spy', (_draft, ctx) => void sessions.push(ctx.session));
    const created = await docs(user, 'POST', '/Customer', { email: 'a@example.com', name: 'Ann', age: 30 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ '~class': 'Customer', email: 'a@example.com', active: true });
    const id = created.body._id as string;
    expect(sessions.at(-1)).toBeInstanceOf(ApiWrite);
    expect((sessions.at(-1) as ApiWrite).caller.username).toBe(USER.username);

    expect((await docs(user, 'GET', `/Customer/${id}`)).body).toMatchObject({ _id: id, name: 'Ann' });
    const stale = created.body._rev as string;
    const patched = await docs(user, 'PATCH', `/Customer/${id}`, { name: 'Anna' }, { 'if-match': stale });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('Anna');
    const conflict = await docs(user, 'PATCH', `/Customer/${id}`, { name: 'Annie' }, { 'if-match': stale });
    expect(conflict).toMatchObject({ status: 409, body: { code: 'DS_DOC_CONFLICT' } });
    const deleted = await docs(user, 'DELETE', `/Customer/${id}`);
    expect(deleted).toMatchObject({ status: 200, body: { active: false } });
    expect((await docs(user, 'GET', `/Customer/${id}`)).body.code).toBe('DS_DOC_NOT_FOUND');
    expect((await stack.getDocument(id, { includeInactive: true }))?.name).toBe('Anna');
  });

  it('creates a batch all or nothing', async () => {
    const ok = await docs(admin, 'POST', '/Customer/_bulk', { docs: [{ email: 'b1@example.com', name: 'B1' }, { email: 'b2@example.com', name: 'B2' }] });
    expect(ok.status).toBe(201);
    expect(ok.body.docs).toHaveLength(2);
    const before = (await stack.findDocuments('Customer')).length;
    const refused = await docs(admin, 'POST', '/Customer/_bulk', { docs: [{ email: 'b3@example.com', name: 'B3' }, { email: 'b4@example.com' }] });
    expect(refused).toMatchObject({ status: 400, body: { path: 'name' } });
    expect(refused.body.code).toMatch(/^DS_/);
    expect((await stack.findDocuments('Customer')).length).toBe(before);
  });

  it('answers refusals with the engine code and path, storing nothing', async () => {
    const before = (await stack.findDocuments('Customer', {}, { includeInactive: true })).length;
    const missing = await docs(user, 'POST', '/Customer', { email: 'm@example.com' });
    expect(missing).toMatchObject({ status: 400, body: { error: 'bad_request', path: 'name' } });
    const wrongType = await docs(user, 'POST', '/Customer', { email: 'w@example.com', name: 'W', age: 'old' });
    expect(wrongType).toMatchObject({ status: 400, body: { path: 'age' } });
    await docs(user, 'POST', '/Customer', { email: 'dup@example.com', name: 'D' });
    const duplicate = await docs(user, 'POST', '/Customer', { email: 'dup@example.com', name: 'D2' });
    expect(duplicate.status).toBe(409);
    const otherClass = await docs(user, 'POST', '/Customer', { '~class': 'Vault', label: 'x' });
    expect(otherClass).toMatchObject({ status: 400, body: { code: 'DS_REQUEST_INVALID', path: '~class' } });
    expect((await docs(user, 'POST', '/Nope', { a: 1 })).body.code).toBe('DS_CLASS_NOT_FOUND');
    expect((await docs(user, 'POST', '/Customer', [1])).body.code).toBe('DS_REQUEST_INVALID');
    expect((await stack.findDocuments('Customer', {}, { includeInactive: true })).length).toBe(before + 1);
  });

  it('passes the node authorization on every write route: engine-internal classes, plaintext in an encrypted attribute', async () => {
    const jobsBefore = (await stack.storage.range({ prefix: '~Job-' })).length;
    // an admin may read ~Job documents over replication, but never write them as a peer
    const internal = await docs(admin, 'POST', '/~Job', { name: 'sneaky', handler: 'x' });
    expect(internal).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_INTERNAL' } });
    const bulk = await docs(admin, 'POST', '/~Job/_bulk', { docs: [{ name: 'sneaky', handler: 'x' }] });
    expect(bulk).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_INTERNAL' } });
    const sql = await call(admin, 'POST', '/api/private/sql', { statement: 'INSERT INTO [~Job] (name, handler) VALUES (?, ?)', params: ['sneaky', 'x'] });
    expect(sql.status).toBe(403);
    expect(sql.body.code).toBe('DS_AUTHZ_INTERNAL');
    expect((await stack.storage.range({ prefix: '~Job-' })).length).toBe(jobsBefore);
    // a user does not even see the class
    expect((await docs(user, 'POST', '/~Job', { name: 'x' })).body.code).toBe('DS_CLASS_NOT_FOUND');
    // server-private classes: nobody, admins included
    expect((await docs(admin, 'GET', '/~User')).body.code).toBe('DS_CLASS_NOT_FOUND');
    expect((await docs(admin, 'POST', '/~Secret', { name: 'x' })).body.code).toBe('DS_CLASS_NOT_FOUND');
    // the meta-classes are not documents here
    expect((await docs(admin, 'POST', '/class', { name: 'X' })).body.code).toBe('DS_CLASS_NOT_FOUND');

    const plaintext = await docs(user, 'POST', '/Vault', { label: 'l', pin: '1234' });
    expect(plaintext).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_PLAINTEXT', path: 'pin' } });
    const vault = await docs(user, 'POST', '/Vault', { label: 'l' });
    expect(vault.status).toBe(201);
    const patch = await docs(user, 'PATCH', `/Vault/${vault.body._id}`, { pin: '1234' });
    expect(patch).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_PLAINTEXT' } });
    const sqlPlain = await call(user, 'POST', '/api/private/sql', { statement: 'INSERT INTO Vault (label, pin) VALUES (?, ?)', params: ['l2', '99'] });
    expect(sqlPlain.body.code).toBe('DS_AUTHZ_PLAINTEXT');
    expect(await stack.findDocuments('Vault')).toHaveLength(1);
  });
});

describe('listing', () => {
  beforeAll(async () => {
    await Class.create(stack, 'Item', 'class', 'items', { n: { type: 'integer', mandatory: true }, colour: { type: 'string' } });
    const colours = ['red', 'green', 'blue'];
    await stack.createDocs(Array.from({ length: 25 }, (_, n) => ({ '~class': 'Item', n, colour: colours[n % 3] })));
  });

  it('pages in _id order with a cursor: every document once', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    for (let pages = 0; cursor !== null; pages++) {
      const page = await docs(user, 'GET', `/Item?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.docs.map((d: { _id: string }) => d._id));
      cursor = page.body.next;
      expect(pages).toBeLessThan(5);
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect([...seen].sort()).toEqual(seen);
  });

  it('filters with a selector, projects fields, sorts, and pages a sorted listing', async () => {
    const q = encodeURIComponent(JSON.stringify({ colour: 'red' }));
    const red = await docs(user, 'GET', `/Item?q=${q}&fields=n&sort=-n&limit=3`);
    expect(red.body.docs.map((d: { n: number }) => d.n)).toEqual([24, 21, 18]);
    expect(Object.keys(red.body.docs[0]).sort()).toEqual(['_id', '_rev', 'n', '~class'].sort());
    const rest = await docs(user, 'GET', `/Item?q=${q}&fields=n&sort=-n&limit=10&cursor=${red.body.next}`);
    expect(rest.body.docs.map((d: { n: number }) => d.n)).toEqual([15, 12, 9, 6, 3, 0]);
    expect(rest.body.next).toBeNull();
    const byColour = await docs(user, 'GET', '/Item?sort=colour,-n&limit=2');
    expect(byColour.body.docs.map((d: { colour: string; n: number }) => `${d.colour}${d.n}`)).toEqual(['blue23', 'blue20']);
  });

  it('refuses a malformed query with DS_QUERY_INVALID and its path', async () => {
    expect((await docs(user, 'GET', '/Item?q=notjson')).body).toMatchObject({ code: 'DS_QUERY_INVALID', path: 'q' });
    expect((await docs(user, 'GET', '/Item?limit=0')).body).toMatchObject({ code: 'DS_QUERY_INVALID', path: 'limit' });
    expect((await docs(user, 'GET', '/Item?cursor=xyz')).body).toMatchObject({ code: 'DS_QUERY_INVALID', path: 'cursor' });
    expect((await docs(user, 'GET', `/Item?q=${encodeURIComponent('{"n":{"$bad":1}}')}`)).status).toBe(400);
  });
});

describe('SQL over HTTP', () => {
  it('runs a SELECT with parameters and an INSERT through the pipeline', async () => {
    const rows = await call(user, 'POST', '/api/private/sql', { statement: 'SELECT n FROM Item WHERE colour = ? ORDER BY n LIMIT 2', params: ['green'] });
    expect(rows).toMatchObject({ status: 200, body: { rows: [{ n: 1 }, { n: 4 }] } });
    const inserted = await call(user, 'POST', '/api/private/sql', { statement: 'INSERT INTO Item (n, colour) VALUES (?, ?)', params: [100, 'gold'] });
    expect(inserted).toMatchObject({ status: 200, body: { count: 1 } });
    expect((await stack.findDocuments('Item', { colour: 'gold' }))[0].n).toBe(100);
  });

  it('refuses a statement reading what replication would not serve the caller, and a malformed one', async () => {
    for (const token of [admin, user]) {
      const users = await call(token, 'POST', '/api/private/sql', { statement: 'SELECT * FROM [~User]' });
      expect(users.status).toBe(403);
      expect(JSON.stringify(users.body)).not.toMatch(/scrypt/);
    }
    expect((await call(user, 'POST', '/api/private/sql', { statement: 'SELECT COUNT(*) AS n FROM [~UserSession]' })).status).toBe(403);
    // an engine-internal class the user cannot replicate: refused even while it holds nothing
    expect((await call(user, 'POST', '/api/private/sql', { statement: 'SELECT * FROM Item JOIN [~Job] j ON j.name = Item.colour' })).body).toMatchObject({ code: 'DS_AUTHZ_INTERNAL', path: '~Job' });
    // system columns are not tables
    expect((await call(user, 'POST', '/api/private/sql', { statement: 'SELECT n, [~createTimestamp] AS at FROM Item WHERE n = 1' })).status).toBe(200);
    expect((await call(user, 'POST', '/api/private/sql', { statement: 'SELEC nonsense' })).body.code).toBe('DS_SQL_SYNTAX');
    expect((await call(user, 'POST', '/api/private/sql', { statement: 42 })).body).toMatchObject({ code: 'DS_REQUEST_INVALID', path: 'statement' });
  });
});

/** The Idempotency-Key tests' customers: `i<n>@idem.example`, age n. */
const one = (n: number) => ({ email: `i${n}@idem.example`, name: 'I', age: n });
const parts = (from: number, n: number) => Array.from({ length: n }, (_, i) => one(from + i));
const emails = (...ns: number[]) => ns.map((n) => one(n).email);
const stored = async () => (await stack.findDocuments('Customer')).map((d) => d.email as string).filter((e) => e.endsWith('@idem.example')).sort();
async function bulk(token: string, list: unknown[], key?: string) {
  const res = await fetch(`${url}/api/private/docs/Customer/_bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key !== undefined ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ docs: list }),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as any };
}

describe('idempotent _bulk (Idempotency-Key; the crash half is bulk-crash.test.ts)', () => {
  it('answers a repeated keyed batch with the same documents, creating none twice; another batch under the key is 422', async () => {
    const first = await bulk(admin, parts(0, 3), 'batch-a');
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const again = await bulk(admin, parts(0, 3), 'batch-a');
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body.docs.map((d: any) => `${d._id}@${d._rev}`)).toEqual(first.body.docs.map((d: any) => `${d._id}@${d._rev}`));
    expect(await stored()).toEqual(emails(0, 1, 2));

    const other = await bulk(admin, parts(10, 3), 'batch-a');
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('DS_IDEMPOTENCY_KEY_REUSED');
    expect(await stored()).toEqual(emails(0, 1, 2));

    // without a key, the same documents again are a new batch: their primary keys are taken
    const unkeyed = await bulk(admin, parts(0, 1));
    expect(unkeyed.status).toBe(409);
    expect(unkeyed.body.code).toBe('DS_UNIQUE_VIOLATION');
    const badKey = await bulk(admin, parts(20, 1), 'x'.repeat(256));
    expect(badKey.status).toBe(400);
    expect(badKey.body.code).toBe('DS_REQUEST_INVALID');
    expect(await stored()).toEqual(emails(0, 1, 2));
  });

  it('a refused first try stores nothing and leaves the key free for the corrected batch', async () => {
    const refused = await bulk(admin, [...parts(30, 2), { ...one(39), age: -1 }], 'batch-b');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('DS_VALIDATION_RANGE');
    expect((await stored()).filter((s) => s.startsWith('i3'))).toEqual([]);
    const corrected = await bulk(admin, parts(30, 3), 'batch-b');
    expect(corrected.status).toBe(201);
    expect(corrected.replayed).toBeNull();
    expect((await stored()).filter((s) => s.startsWith('i3'))).toEqual(emails(30, 31, 32));
  });

  it('keeps ids the request gives, refuses one already taken (409, key not recorded), and scopes keys per user', async () => {
    const given = await bulk(admin, [{ _id: 'Customer-given', ...one(40) }], 'batch-c');
    expect(given.status).toBe(201);
    expect(given.body.docs[0]._id).toBe('Customer-given');
    expect((await bulk(admin, [{ _id: 'Customer-given', ...one(40) }], 'batch-c')).replayed).toBe('true');
    const taken = await bulk(admin, [{ _id: 'Customer-given', ...one(41) }], 'batch-d');
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('DS_DOC_EXISTS');
    expect((await stored()).filter((s) => s.startsWith('i4'))).toEqual(emails(40));
    // two tries at once run one after the other: one creates, the other answers
    const both = await Promise.all([bulk(admin, [one(45)], 'batch-e'), bulk(admin, [one(45)], 'batch-e')]);
    expect(both.map((b) => b.status)).toEqual([201, 201]);
    expect(both.map((b) => b.replayed).sort()).toEqual(['true', null].sort());
    // the key was not recorded: another batch under it is a first try, not a 422
    expect((await bulk(admin, [one(41)], 'batch-d')).status).toBe(201);
    expect((await stored()).filter((s) => s.startsWith('i4'))).toEqual(emails(40, 41, 45));

    // another user's batch under the same key is theirs: created, not answered with the admin's
    const theirs = await bulk(user, parts(50, 1), 'batch-a');
    expect(theirs.status).toBe(201);
    expect(theirs.replayed).toBeNull();
    expect(theirs.body.docs[0].email).toBe(one(50).email);
  });
});
