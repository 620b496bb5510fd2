import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import PouchDB from 'pouchdb-core';
import HttpAdapter from 'pouchdb-adapter-http';
import MemoryAdapter from 'pouchdb-adapter-memory';
import Replication from 'pouchdb-replication';
import { Class, createStack } from '../../index.js';
import { browser } from '../../plugins.config.js';
import { TENANT_DOCUMENT_CACHE } from '../../server/tenants/stacks.js';
import { DOCUMENT_CACHE_DEFAULTS, type VerifiedDocumentCache } from '../../storage/document-cache.js';
import { documentCaches } from '../../storage/document-caches.js';
import { rawDb, track, uniqueName } from '../helpers/stack.js';
import { fileNode, login, testNode } from './node-helpers.js';
import type { ServerNode } from '../../server/node.js';

PouchDB.plugin(HttpAdapter).plugin(MemoryAdapter).plugin(Replication);

const INVOICE = { number: { type: 'string', mandatory: true } };
const ORDER = { item: { type: 'string', mandatory: true } };

type Setup = Awaited<ReturnType<typeof startTwoTenants>>;
let shared: Promise<Setup> | null = null;
let sharedNode: ServerNode | null = null;
afterAll(async () => {
  await sharedNode?.stop();
});

/** One node for the file (a start and the logins cost seconds): tests use their own document ids. */
function twoTenants(): Promise<Setup> {
  shared ??= (async () => {
    const node = await fileNode();
    sharedNode = node;
    return startTwoTenants(node);
  })();
  return shared;
}

/** A node with two tenants: Invoices belong to acme, Orders to globex; alice is in acme, bob in globex. */
async function startTwoTenants(node: ServerNode) {
  const { url } = await node.start();
  await Class.create(node.stack(), 'Invoice', 'class', '', INVOICE, { tenants: ['acme'] });
  await Class.create(node.stack(), 'Order', 'class', '', ORDER, { tenants: ['globex'] });
  const admin = (await login(url)).token;
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  expect((await call('POST', '/api/private/users', admin, { username: 'alice', password: 'alice password', tenants: ['acme'] })).status).toBe(201);
  expect((await call('POST', '/api/private/users', admin, { username: 'bob', password: 'bob password', tenants: ['globex'] })).status).toBe(201);
  const alice = (await login(url, 'alice', 'alice password')).token;
  const bob = (await login(url, 'bob', 'bob password')).token;
  return { node, url, admin, alice, bob, call };
}

function remote(url: string, token: string): PouchDB.Database {
  const fetchWithToken = (u: string, opts: { headers: Headers }) => {
    opts.headers.set('Authorization', `Bearer ${token}`);
    return (PouchDB as unknown as { fetch: (u: string, o: unknown) => Promise<unknown> }).fetch(u, opts);
  };
  return new PouchDB(url, { fetch: fetchWithToken, skip_setup: true } as never);
}

const local = () => new PouchDB(uniqueName('tenant-client'), { adapter: 'memory' });
const invoice = (n: number) => ({ _id: `Invoice-${n}`, '~class': 'Invoice', number: `I-${n}`, active: true, '~createTimestamp': new Date().toISOString() });
const order = (n: number) => ({ _id: `Order-${n}`, '~class': 'Order', item: `thing ${n}`, active: true, '~createTimestamp': new Date().toISOString() });

describe('tenants on the node', () => {
  it('a user of tenant A can neither read nor write tenant B, over HTTP or replication', async () => {
    const { url, alice, call } = await twoTenants();
    expect(await call('GET', '/db/acme', alice)).toMatchObject({ status: 200, body: { db_name: 'acme' } });
    expect(await call('POST', '/db/acme/_bulk_docs', alice, { docs: [invoice(1)] })).toMatchObject({ status: 201, body: [{ ok: true, id: 'Invoice-1' }] });
    // tenant B: every route, reads and writes
    expect(await call('GET', '/db/globex', alice)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    // a member of tenants reaches only their tenants, not the default database either
    expect(await call('GET', '/db/docstack/_changes', alice)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('POST', '/db/docstack/_bulk_docs', alice, { docs: [invoice(1)] })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('GET', '/db/globex/_changes', alice)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('GET', '/db/globex/_all_docs', alice)).toMatchObject({ status: 403 });
    expect(await call('POST', '/db/globex/_bulk_docs', alice, { docs: [order(1)] })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('PUT', '/db/globex/Order-2', alice, order(2))).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    // stock PouchDB replication both ways
    await expect(local().replicate.from(remote(`${url}/db/globex`, alice))).rejects.toMatchObject({ status: 403 });
    const mine = local();
    await mine.put(order(3));
    await expect(mine.replicate.to(remote(`${url}/db/globex`, alice))).rejects.toMatchObject({ status: 403 });
    // nothing of alice's reached globex, and acme's data stays in acme
    const { admin } = { admin: (await login(url)).token };
    expect((await call('GET', '/db/globex/_all_docs', admin)).body.rows.map((r: { id: string }) => r.id)).not.toContain('Order-1');
    expect(await call('GET', '/db/globex/Invoice-1', admin)).toMatchObject({ status: 404 });
    expect(await call('GET', '/db/acme/Invoice-1', alice)).toMatchObject({ status: 200, body: { number: 'I-1' } });
  });

  it("a class of tenant B is refused by A's endpoint, on _bulk_docs, PUT and replication, per document", async () => {
    const { url, admin, alice, call } = await twoTenants();
    const bulk = await call('POST', '/db/acme/_bulk_docs', alice, { docs: [order(1), invoice(2)] });
    expect(bulk.body).toEqual([expect.objectContaining({ id: 'Order-1', error: 'forbidden', code: 'DS_TENANT_CLASS' }), expect.objectContaining({ id: 'Invoice-2', ok: true })]);
    expect(await call('PUT', '/db/acme/Order-4', alice, order(4))).toMatchObject({ status: 403, body: { code: 'DS_TENANT_CLASS' } });
    // an admin cannot smuggle the class in either: a class document must name the tenant
    const classDoc = { _id: 'Order', '~class': 'class', name: 'Order', schema: {}, triggers: [], tenants: ['globex'], active: true };
    expect((await call('POST', '/db/acme/_bulk_docs', admin, { docs: [classDoc] })).body).toEqual([expect.objectContaining({ id: 'Order', code: 'DS_TENANT_CLASS' })]);
    const mine = local();
    await mine.bulkDocs([order(5), invoice(6)]);
    const denied: string[] = [];
    await mine.replicate.to(remote(`${url}/db/acme`, alice)).on('denied', (e: { id?: string; doc?: { id?: string } }) => denied.push(String(e.doc?.id ?? e.id)));
    expect(denied).toEqual(['Order-5']);
    const ids = (await call('GET', '/db/acme/_all_docs', admin)).body.rows.map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining(['Invoice-2', 'Invoice-6', 'Invoice']));
    expect(ids.filter((id: string) => id.startsWith('Order'))).toEqual([]);
  });

  it("the tenant's class documents are in its stack (the same revisions), and follow class changes", async () => {
    const { node, url, alice, call } = await twoTenants();
    const pulled = local();
    await pulled.replicate.from(remote(`${url}/db/acme`, alice));
    const source = await node.stack().storage.replication.get('Invoice');
    expect(await pulled.get('Invoice')).toMatchObject({ _rev: source._rev, tenants: ['acme'] });
    await expect(pulled.get('Order')).rejects.toMatchObject({ status: 404 });
    // a class added for acme while its stack is open arrives there
    await Class.create(node.stack(), 'Receipt', 'class', '', INVOICE, { tenants: ['acme', 'globex'] });
    await waitFor(async () => (await call('GET', '/db/acme/Receipt', alice)).status === 200);
    const receipt = { _id: 'Receipt-1', '~class': 'Receipt', number: 'R-1', active: true, '~createTimestamp': new Date().toISOString() };
    expect((await call('POST', '/db/acme/_bulk_docs', alice, { docs: [receipt] })).body).toEqual([expect.objectContaining({ ok: true })]);
  });

  it('a client stack syncs its tenant with stack.sync, filtered by class', async () => {
    const { url, alice, call } = await twoTenants();
    await call('POST', '/db/acme/_bulk_docs', alice, { docs: [invoice(11), invoice(12)] });
    const client = track(await createStack({ name: uniqueName('tenant-sync'), adapter: 'memory', plugins: browser }));
    await client.sync({ remote: `${url}/db/acme`, auth: { username: 'alice', password: 'alice password' }, classes: ['Invoice'] });
    expect((await client.findDocuments('Invoice')).map((d) => d.number)).toEqual(expect.arrayContaining(['I-11', 'I-12']));
    expect(await client.listClasses()).not.toContain('Order');
    const written = await client.createDoc({ '~class': 'Invoice', number: 'I-3' });
    await client.sync({ remote: `${url}/db/acme`, auth: { username: 'alice', password: 'alice password' }, classes: ['Invoice'] });
    expect(await call('GET', `/db/acme/${written._id}`, alice)).toMatchObject({ status: 200, body: { number: 'I-3' } });
    await expect(client.sync({ remote: `${url}/db/globex`, auth: { username: 'alice', password: 'alice password' } })).rejects.toMatchObject({ status: 403 });
  });

  it("a tenant's quota (set by an admin on the default stack) holds on that tenant's endpoint", async () => {
    const { admin, bob, call } = await twoTenants();
    const set = await call('PUT', '/api/private/quotas', admin, { scope: 'tenant', subject: 'globex', className: 'Order', maxDocs: 2 });
    expect(set, JSON.stringify(set.body)).toMatchObject({ status: 200 });
    const orders = [order(901), order(902), order(903)];
    const pushed = await call('POST', '/db/globex/_bulk_docs', bob, { docs: orders });
    expect(pushed.status).toBe(201);
    // the tenant may already hold Orders from other tests: at most two stand in all, the rest refused with the usage
    const refused = (pushed.body as { id: string; error?: string; reason?: string; code?: string }[]).filter((line) => line.error);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ error: 'forbidden', reason: expect.stringMatching(/quota/i) });
    const stored = await call('GET', `/db/globex/_all_docs?startkey=${encodeURIComponent('"Order-"')}&endkey=${encodeURIComponent('"Order-\uffff"')}`, bob);
    expect(stored.body.rows.length).toBeLessThanOrEqual(2);
    expect(await call('DELETE', `/api/private/quotas/${(await call('GET', '/api/private/quotas', admin)).body.quotas.find((q: { subject: string }) => q.subject === 'globex')._id}`, admin)).toMatchObject({ status: 200 });
  });

  it('the document API and SQL serve the default database (a member of tenants gets 403 there) or, with X-Docstack-Tenant, a tenant of the caller', async () => {
    const { url, admin, alice, bob, call } = await twoTenants();
    expect(await call('GET', '/api/private/docs/Invoice', alice)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('POST', '/api/private/docs/Invoice', alice, { number: 'I-x' })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await call('POST', '/api/private/sql', alice, { statement: 'SELECT * FROM Invoice' })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect((await call('GET', '/api/private/docs/Invoice', admin)).status).toBe(200);
    // with the tenant header the same routes work on the tenant's stack, for its members only
    const inTenant = async (method: string, path: string, token: string, tenant: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'x-docstack-tenant': tenant, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const created = await inTenant('POST', '/api/private/docs/Invoice', alice, 'acme', { number: 'I-api' });
    expect(created, JSON.stringify(created.body)).toMatchObject({ status: 201 });
    expect(await inTenant('GET', `/api/private/docs/Invoice/${created.body._id}`, alice, 'acme')).toMatchObject({ status: 200, body: { number: 'I-api' } });
    expect(await call('GET', `/db/acme/${created.body._id}`, alice)).toMatchObject({ status: 200, body: { number: 'I-api' } });
    expect((await call('GET', `/api/private/docs/Invoice/${created.body._id}`, admin)).status).toBe(404); // not in the default database
    expect(await inTenant('POST', '/api/private/sql', alice, 'acme', { statement: "SELECT number FROM Invoice WHERE number = 'I-api'" })).toMatchObject({ status: 200 });
    expect(await inTenant('GET', '/api/private/docs/Order', alice, 'globex')).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
    expect(await inTenant('POST', '/api/private/docs/Order', bob, 'acme', { item: 'x' })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_TENANT' } });
  });

  it('admins manage the tenants of a user; names are checked; unknown tenants are 404', async () => {
    const { url, admin, alice, bob, call } = await twoTenants();
    expect(await call('PUT', '/api/private/users/bob/tenants', alice, { tenants: ['acme'] })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_ADMIN' } });
    expect(await call('PUT', '/api/private/users/bob/tenants', admin, { tenants: ['Acme'] })).toMatchObject({ status: 400, body: { code: 'DS_TENANT_INVALID', path: 'tenants.0' } });
    expect(await call('PUT', '/api/private/users/bob/tenants', admin, { tenants: '../x' })).toMatchObject({ status: 400, body: { code: 'DS_TENANT_INVALID' } });
    expect(await call('POST', '/api/private/users', admin, { username: 'carol', password: 'carol password', tenants: ['a/b'] })).toMatchObject({ status: 400, body: { code: 'DS_TENANT_INVALID' } });
    expect(await call('GET', '/db/acme', bob)).toMatchObject({ status: 403 });
    expect(await call('PUT', '/api/private/users/bob/tenants', admin, { tenants: ['globex', 'acme', 'acme'] })).toMatchObject({ status: 200, body: { username: 'bob', tenants: ['globex', 'acme'] } });
    expect(await call('GET', '/db/acme', bob)).toMatchObject({ status: 200 }); // the next request already
    expect(await call('GET', '/api/private/users/bob/tenants', bob)).toMatchObject({ status: 200, body: { tenants: ['globex', 'acme'] } });
    expect(await call('GET', '/api/private/users/bob/tenants', alice)).toMatchObject({ status: 403 });
    // a tenant no class declares: 404 for an admin; a non-member gets 403 before any lookup
    expect(await call('GET', '/db/initech', admin)).toMatchObject({ status: 404, body: { code: 'DS_DATABASE_NOT_FOUND' } });
    expect(await call('GET', '/db/initech', alice)).toMatchObject({ status: 403 });
    expect(await call('GET', '/db/ACME', admin)).toMatchObject({ status: 404 });
    void url;
  });

  it('tenant stacks open lazily, at most TENANT_MAX_OPEN at once, close when idle, and keep their data', async () => {
    const { node } = await testNode({ env: { TENANT_MAX_OPEN: '2', TENANT_IDLE_MS: '1000' } });
    const { url } = await node.start();
    await Class.create(node.stack(), 'Memo', 'class', '', { text: { type: 'string' } }, { tenants: ['t1', 't2', 't3', 't4'] });
    const admin = (await login(url)).token;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect(node.tenants.openCount).toBe(0);
    const memo = { _id: 'Memo-1', '~class': 'Memo', text: 'kept', active: true, '~createTimestamp': new Date().toISOString() };
    expect((await call('POST', '/db/t1/_bulk_docs', { docs: [memo] })).body).toEqual([expect.objectContaining({ ok: true })]);
    for (const tenant of ['t2', 't3', 't4']) {
      expect((await call('GET', `/db/${tenant}`)).status).toBe(200);
      await waitFor(async () => node.tenants.openCount <= 2);
    }
    await waitFor(async () => node.tenants.openCount === 0, 5000); // idle for a second: closed
    expect(await call('GET', '/db/t1/Memo-1')).toMatchObject({ status: 200, body: { text: 'kept' } });
    expect(node.tenants.openCount).toBe(1);
    // a stack lent to a request (a long-poll feed) is never closed under it, whatever opens meanwhile
    const held = await node.tenants.lease('t1');
    for (const tenant of ['t2', 't3', 't4']) await node.tenants.use(tenant, async () => undefined);
    expect(held.stack.isOpen).toBe(true);
    // each open tenant store keeps a smaller document cache than the default stack's
    const tenantCache = documentCaches.get(rawDb(held.stack)) as VerifiedDocumentCache;
    const defaultCache = documentCaches.get(rawDb(node.stack())) as VerifiedDocumentCache;
    expect(tenantCache.limits).toEqual(TENANT_DOCUMENT_CACHE);
    expect(defaultCache.limits).toEqual(DOCUMENT_CACHE_DEFAULTS);
    await held.stack.createDoc({ '~class': 'Memo', text: 'still open' });
    held.release();
    await waitFor(async () => node.tenants.openCount <= 2);
    await expect(node.tenants.lease('nope')).rejects.toMatchObject({ code: 'DS_TENANT_NOT_FOUND' });
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
