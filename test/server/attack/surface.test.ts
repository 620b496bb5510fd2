import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp, readdir, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Class } from '../../../index.js';
import type { ServerNode } from '../../../server/node.js';
import { fileNode, login, testNode } from '../node-helpers.js';

/**
 * Issue 26, the node's surface: what a logged-in user of a tenant, a cross-site page or a copy of
 * the data folder could do that they should not. A real node on leveldb, real HTTP requests.
 * One node for the file: every test uses its own ids.
 */
let node: ServerNode;
let url: string;
let admin: string;
let alice: string; // member of the tenant acme
let bob: string; // a user of the default database
let carol: string; // another user of the default database

type Answer = { status: number; body: any; headers: Headers };
async function call(method: string, path: string, options: { token?: string; cookie?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = `jwtToken=${options.cookie}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${url}${path}`, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // left as text: a test expecting JSON fails on it
  }
  return { status: res.status, body, headers: res.headers };
}

beforeAll(async () => {
  node = await fileNode();
  ({ url } = await node.start());
  await Class.create(node.stack(), 'Note', 'class', '', { title: { type: 'string' }, email: { type: 'string', unique: true }, number: { type: 'integer', sequence: 'note-number' } });
  await Class.create(node.stack(), 'Invoice', 'class', '', { number: { type: 'string' }, code: { type: 'string', unique: true } }, { tenants: ['acme'] });
  admin = (await login(url)).token;
  for (const [username, tenants] of [['alice', ['acme']], ['bob', []], ['carol', []]] as const) {
    expect((await call('POST', '/api/private/users', { token: admin, body: { username, password: `${username} password`, tenants } })).status).toBe(201);
  }
  alice = (await login(url, 'alice', 'alice password')).token;
  bob = (await login(url, 'bob', 'bob password')).token;
  carol = (await login(url, 'carol', 'carol password')).token;
}, 60_000);
afterAll(() => node.stop());

describe('authority routes are scoped like the rest (item 5)', () => {
  it('a tenant member reaches the authority of their tenant only, never the default database', async () => {
    expect(await call('POST', '/api/private/unique/Note/email', { token: alice, body: { value: 'x@example.org', id: 'Note-alice' } })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('POST', '/api/private/sequences/note-number/next', { token: alice })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('GET', '/api/private/quotas/usage', { token: alice })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    // their tenant, named like on the document API
    const acme = { 'x-docstack-tenant': 'acme' };
    expect(await call('POST', '/api/private/unique/Invoice/code', { token: alice, headers: acme, body: { value: 'A-1', id: 'Invoice-a1' } })).toMatchObject({ status: 200, body: { claimed: true } });
    expect(await call('GET', '/api/private/quotas/usage', { token: alice, headers: acme })).toMatchObject({ status: 200 });
    // another tenant: refused
    expect(await call('GET', '/api/private/quotas/usage', { token: alice, headers: { 'x-docstack-tenant': 'globex' } })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
  });

  it("never tells who holds a value, unless the caller can read the holder; a sequence block is bounded", async () => {
    expect(await call('POST', '/api/private/unique/Note/email', { token: bob, body: { value: 'bob@example.org', id: 'Note-bobs-pending' } })).toMatchObject({ status: 200, body: { claimed: true } });
    const refused = await call('POST', '/api/private/unique/Note/email', { token: carol, body: { value: 'bob@example.org', id: 'Note-carol' } });
    expect(refused).toMatchObject({ status: 200, body: { claimed: false } });
    expect(JSON.stringify(refused.body)).not.toContain('Note-bobs-pending');
    expect(await call('POST', '/api/private/sequences/note-number/next?count=10000', { token: bob })).toMatchObject({ status: 400 });
    expect(await call('POST', '/api/private/sequences/note-number/next?count=10', { token: bob })).toMatchObject({ status: 200 });
  });
});
