import type { ClientStack } from '../../index.js';
/**
 * Who may write what, on every write path of the node: replication `_bulk_docs`
 * (`new_edits: false`, as PouchDB pushes), `PUT /db/<name>/<id>`, and the private schema routes.
 * And who may read what over replication: `_changes`, `_all_docs`, `_bulk_get`, GET.
 * A real node (createServerNode, memory store) on 127.0.0.1 with real logins: an admin and a user.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Class, getApi } from '../../index.js';
import { jobsPlugin } from '../../plugins/jobs/index.js';
import { createUser } from '../../server/auth/index.js';
import type { ServerNode } from '../../server/node.js';
import { fileNode, login } from './node-helpers.js';

const USER = { username: 'ulla', password: 'ulla password for tests' };
const now = () => new Date().toISOString();
const hex = () => randomBytes(16).toString('hex');

/** A revision a peer made: generation n, linked to its parent when there is one. */
function revFrom(parent?: string): { _rev: string; _revisions: { start: number; ids: string[] } } {
  const [gen, hash] = parent ? [Number(parent.split('-')[0]), parent.split('-')[1]] : [0, ''];
  const id = hex();
  return { _rev: `${gen + 1}-${id}`, _revisions: { start: gen + 1, ids: hash ? [id, hash] : [id] } };
}

let node: ServerNode;
let url: string;
let stack: ClientStack;
let adminToken: string;
let userToken: string;

beforeAll(async () => {
  node = await fileNode({ adapter: 'memory', config: { stackName: 'docstack' } });
  ({ url } = await node.start());
  stack = node.stack();
  await createUser(stack, USER.username, USER.password);
  adminToken = (await login(url)).token;
  userToken = (await login(url, USER.username, USER.password)).token;
  await Class.create(stack, 'Customer', 'class', 'customers', {
    email: { type: 'string', primaryKey: true, maxLength: 100 },
    name: { type: 'string', mandatory: true, maxLength: 40 },
  });
  await Class.create(stack, 'Secret', 'class', 'sealed values', {
    label: { type: 'string' },
    pin: { type: 'string', encrypted: true },
  });
  await stack.createDoc({ '~class': 'Customer', email: 'first@example.com', name: 'First' });
});
afterAll(() => node.stop());

interface BulkLine {
  id: string;
  ok?: boolean;
  error?: string;
  code?: string;
  reason?: string;
}

async function request(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Pushes documents as PouchDB's replicator does; answers one line per document. */
async function bulk(token: string, docs: Record<string, unknown>[]): Promise<BulkLine[]> {
  const answer = await request('POST', '/db/docstack/_bulk_docs', token, { docs, new_edits: false });
  expect(answer.status).toBe(201);
  return answer.body as unknown as BulkLine[];
}

/** One document by `PUT /db/docstack/<id>`, as a CouchDB client edits one. */
function put(token: string, doc: Record<string, unknown>) {
  const id = doc._id as string;
  const path = id.startsWith('_local/') ? `_local/${encodeURIComponent(id.slice(7))}` : encodeURIComponent(id);
  return request('PUT', `/db/docstack/${path}`, token, doc);
}

const stored = (id: string) => stack.storage.get<Record<string, unknown>>(id);

/** With `new_edits: false` a stored document gets no line (CouchDB's and PouchDB's answer): only refusals do. */
async function expectAccepted(lines: BulkLine[], id: string): Promise<void> {
  expect(lines.find((l) => l.id === id && l.error), id).toBeUndefined();
  expect(await stored(id), id).not.toBeNull();
}

function expectRefusedLine(lines: BulkLine[], id: string, code: string): void {
  const line = lines.find((l) => l.id === id);
  expect(line, id).toMatchObject({ error: 'forbidden', code });
}

describe('engine-internal documents are written by the engine only', () => {
  const internalDocs = (): Record<string, unknown>[] => [
    { _id: `~Job-${hex()}`, '~class': '~Job', name: `evil-${hex()}`, handler: 'retention.sweep', schedule: '* * * * * *', params: { className: '~User', olderThanDays: 0, mode: 'purge' }, '~createTimestamp': now(), active: true },
    { _id: `~JobRun-${hex()}`, '~class': '~JobRun', job: 'x', status: 'succeeded', trigger: 'manual', attempt: 1, '~createTimestamp': now(), active: true },
    { _id: '~Keyring-main', '~class': '~Keyring', '~createTimestamp': now(), active: true },
    { _id: `~TriggerFailure-${hex()}`, '~class': '~TriggerFailure', '~createTimestamp': now(), active: true },
    { _id: `~UserSession-${hex()}`, '~class': '~UserSession', userId: 'x', '~createTimestamp': now(), active: true },
    { _id: '~Job', '~class': 'class', name: '~Job', schema: {}, triggers: [], '~createTimestamp': now(), active: true },
    { _id: '_local/~pk/Customer/["first@example.com"]', docId: 'Customer-stolen' },
    // a relation-looking id does not make an internal class writable
    { _id: `~rel-x-${hex()}`, '~class': '~Job', name: 'sneaky', handler: 'retention.sweep' },
  ];

  for (const who of ['user', 'admin'] as const) {
    it(`refuses them from a ${who} on _bulk_docs and on PUT, and stores nothing`, async () => {
      const token = who === 'admin' ? adminToken : userToken;
      const docs = internalDocs();
      const lines = await bulk(token, docs.map((d) => (d._id as string).startsWith('_local/') ? d : { ...d, ...revFrom() }));
      for (const doc of docs) {
        // an engine class document: every peer's engine makes its own; a peer's copy is answered as stored, ignored
        if (doc._id === '~Job') expect(lines.find((l) => l.id === '~Job')).toMatchObject({ ok: true });
        else expectRefusedLine(lines, doc._id as string, 'DS_AUTHZ_INTERNAL');
      }
      for (const doc of internalDocs()) {
        const answer = await put(token, doc);
        expect(answer, doc._id as string).toMatchObject({ status: 403, body: { error: 'forbidden', code: 'DS_AUTHZ_INTERNAL' } });
      }
      for (const doc of docs) {
        if ((doc._id as string).startsWith('_local/') || doc._id === '~Job' || doc._id === '~Keyring-main') continue;
        expect(await stored(doc._id as string), doc._id as string).toBeNull();
      }
      // what exists for real was not replaced
      expect(((await stored('~Job')) as { name?: string } | null)?.name).toBe('~Job');
      expect(await stack.primaryKeys.lookup('Customer', ['first@example.com'])).toMatch(/^Customer-/);
    });
  }

  it('a pushed retention job cannot purge the users (the attack that took the node over)', async () => {
    const usersBefore = (await stack.findDocuments('~User')).length;
    const job = internalDocs()[0];
    const lines = await bulk(userToken, [{ ...job, ...revFrom() }]);
    expectRefusedLine(lines, job._id as string, 'DS_AUTHZ_INTERNAL');
    expect(await getApi(stack, jobsPlugin)!.get(job.name as string)).toBeNull();
    expect((await stack.findDocuments('~User')).length).toBe(usersBefore);
    expect((await login(url, USER.username, USER.password)).status).toBe(200);
  });
});

describe('the schema is changed by admins only', () => {
  async function classRevision(name: string, change: (model: Record<string, unknown>) => void): Promise<Record<string, unknown>> {
    const current = (await stored(name)) as Record<string, unknown>;
    const next = structuredClone(current);
    change(next);
    return { ...next, ...revFrom(current._rev as string) };
  }
  // class documents are stored in the specification's attribute shape: { name, type, config }
  const relax = (model: Record<string, unknown>) => {
    const schema = model.schema as Record<string, { config: Record<string, unknown> }>;
    delete schema.name.config.mandatory;
    schema.name.config.maxLength = 100000;
  };

  it('a user cannot relax a class, delete it or add one, by _bulk_docs or by PUT', async () => {
    const before = (await stored('Customer')) as Record<string, unknown>;
    const relaxed = await classRevision('Customer', relax);
    expectRefusedLine(await bulk(userToken, [relaxed]), 'Customer', 'DS_AUTHZ_SCHEMA');
    const { _revisions: _r, ...relaxedPut } = relaxed;
    expect(await put(userToken, { ...relaxedPut, _rev: before._rev })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });

    const tombstone = { _id: 'Customer', _deleted: true, ...revFrom(before._rev as string) };
    expectRefusedLine(await bulk(userToken, [tombstone]), 'Customer', 'DS_AUTHZ_SCHEMA');
    expect(await put(userToken, { ...before, active: false })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });

    const newClass = { _id: 'Invented', '~class': 'class', name: 'Invented', description: '', parentClass: null, schema: {}, triggers: [], simple: true, ephemeral: false, tenants: [], defaultScope: null, active: true, '~createTimestamp': now() };
    expectRefusedLine(await bulk(userToken, [{ ...newClass, ...revFrom() }]), 'Invented', 'DS_AUTHZ_SCHEMA');
    expect(await put(userToken, newClass)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });
    const domain = { _id: 'domain-Owns', '~class': 'domain', name: 'Owns', relation: '1:N', sourceClass: 'Customer', targetClass: 'Customer', '~createTimestamp': now(), active: true };
    expectRefusedLine(await bulk(userToken, [{ ...domain, ...revFrom() }]), 'domain-Owns', 'DS_AUTHZ_SCHEMA');
    expect(await put(userToken, domain)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });

    // nothing changed: same revision, still mandatory, and a document it would now let through is refused
    expect(((await stored('Customer')) as { _rev: string })._rev).toBe(before._rev);
    expect(await stored('Invented')).toBeNull();
    expect(await stored('domain-Owns')).toBeNull();
    const invalid = { _id: `Customer-${hex()}`, '~class': 'Customer', email: 'no-name@example.com', '~createTimestamp': now(), active: true, ...revFrom() };
    expectRefusedLine(await bulk(userToken, [invalid]), invalid._id, 'DS_VALIDATION_MANDATORY');
    expect(await stored(invalid._id)).toBeNull();
  });

  it('the schema routes refuse a user', async () => {
    expect(await request('POST', '/api/private/create-class/Mine', userToken, { schema: {} })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });
    expect(await request('PUT', '/api/private/create-attribute/Customer', userToken, { name: 'x', type: 'string' })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });
    expect(await stored('Mine')).toBeNull();
    expect((await stack.requireClass('Customer')).schema.x).toBeUndefined();
  });

  it('an admin may change a class by replication, under the rules of Attribute.create', async () => {
    await Class.create(stack, 'Note', 'class', '', { text: { type: 'string', mandatory: true, maxLength: 10 } });
    await stack.createDoc({ '~class': 'Note', text: 'one' });
    // a new mandatory attribute without a default would break the stored notes
    const breaking = await classRevision('Note', (m) => {
      (m.schema as Record<string, unknown>).title = { name: 'title', type: 'string', config: { mandatory: true } };
    });
    expectRefusedLine(await bulk(adminToken, [breaking]), 'Note', 'DS_ATTRIBUTE_MANDATORY_NEEDS_DEFAULT');
    const badType = await classRevision('Note', (m) => {
      (m.schema as Record<string, unknown>).n = { name: 'n', type: 'no such type', config: {} }; // not even a type name; a well-formed unknown one is kept read-only (test/kernel/ingest.test.ts)
    });
    expectRefusedLine(await bulk(adminToken, [badType]), 'Note', 'DS_ATTRIBUTE_TYPE_UNKNOWN');
    expect((await stack.requireClass('Note')).schema.title).toBeUndefined();

    const relaxed = await classRevision('Note', (m) => {
      const schema = m.schema as Record<string, { config: Record<string, unknown> }>;
      delete schema.text.config.mandatory;
      schema.text.config.maxLength = 1000;
    });
    await expectAccepted(await bulk(adminToken, [relaxed]), 'Note');
    stack.classCache.invalidate('Note');
    expect((await stack.requireClass('Note')).schema.text).toMatchObject({ maxLength: 1000 });
    expect((await stack.requireClass('Note')).schema.text.mandatory).toBeUndefined();
  });
});

describe('the meta-classes cannot be changed over HTTP at all', () => {
  it('refuses the schema routes on class, domain and ~self, even for an admin', async () => {
    for (const name of ['class', 'domain', '~self']) {
      const attribute = await request('PUT', `/api/private/create-attribute/${encodeURIComponent(name)}`, adminToken, { name: 'x', type: 'string' });
      expect(attribute, name).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_META_CLASS' } });
      const created = await request('POST', `/api/private/create-class/${encodeURIComponent(name)}`, adminToken, { schema: {} });
      expect(created, name).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_META_CLASS' } });
    }
    expect((await stack.requireClass('class')).schema.x).toBeUndefined();
    expect((await stack.requireClass('domain')).schema.x).toBeUndefined();
  });

  it('ignores their documents on _bulk_docs (every peer makes its own) and refuses them on PUT, even from an admin', async () => {
    for (const id of ['class', 'domain', '~self']) {
      // `~self` has no document of its own (it is the class of `class`): a peer must not create one
      const current = (await stored(id)) ?? { _id: id, '~class': 'class', name: id, schema: {}, active: true };
      const changed = { ...current, schema: {}, ...revFrom(current._rev as string | undefined) };
      // answered as stored (a new client's first push is not reported as a refusal), never stored
      expect(await bulk(adminToken, [changed])).toEqual([expect.objectContaining({ id, ok: true })]);
      expect(await put(adminToken, { ...current, schema: {} }), id).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_META_CLASS' } });
      expect(((await stored(id)) as { _rev?: string } | null)?._rev).toBe(current._rev);
    }
    // a document that claims to be a class document under another id
    const fake = { _id: 'class-fake', '~class': 'class', name: 'fake', schema: {}, ...revFrom() };
    expectRefusedLine(await bulk(adminToken, [fake]), 'class-fake', 'DS_AUTHZ_META_CLASS');
  });
});

describe('encrypted attributes arrive sealed or not at all', () => {
  const sealed = () => ({ '~enc': 1, scope: 'default', kid: 'k1', iv: 'aXZpdml2aXZpdml2', ct: 'Y2lwaGVydGV4dA==' });
  const secret = (pin: unknown) => ({ _id: `Secret-${hex()}`, '~class': 'Secret', label: 'x', pin, '~createTimestamp': now(), active: true });

  it('refuses plaintext (and anything not exactly a sealed payload) on _bulk_docs and PUT', async () => {
    const bad = [secret('1234'), secret(1234), secret({ ...sealed(), extra: 'x' }), secret({ '~enc': 1, scope: 'default' }), secret(['1234'])];
    const lines = await bulk(userToken, bad.map((d) => ({ ...d, ...revFrom() })));
    for (const doc of bad) {
      expectRefusedLine(lines, doc._id, 'DS_AUTHZ_PLAINTEXT');
      expect(await stored(doc._id)).toBeNull();
    }
    const onePut = secret('1234');
    expect(await put(userToken, onePut)).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_PLAINTEXT' } });
    expect(await stored(onePut._id)).toBeNull();
  });

  it('stores a sealed payload and a cleared (null) value', async () => {
    const good = [secret(sealed()), secret(null)];
    const lines = await bulk(userToken, good.map((d) => ({ ...d, ...revFrom() })));
    for (const doc of good) await expectAccepted(lines, doc._id);
    const viaPut = secret(sealed());
    expect((await put(userToken, viaPut)).status).toBe(201);
    expect(((await stored(viaPut._id)) as { pin: unknown }).pin).toEqual(sealed());
  });
});

describe('natural keys inside one batch', () => {
  it('stores one of two documents with the same key and refuses the other, as createDocs does', async () => {
    const a = { _id: `Customer-${hex()}`, '~class': 'Customer', email: 'twin@example.com', name: 'A', '~createTimestamp': now(), active: true, ...revFrom() };
    const b = { ...a, _id: `Customer-${hex()}`, name: 'B', ...revFrom() };
    const lines = await bulk(userToken, [a, b]);
    await expectAccepted(lines, a._id);
    expectRefusedLine(lines, b._id, 'DS_UNIQUE_VIOLATION');
    expect(await stored(b._id)).toBeNull();
    expect(await stack.primaryKeys.lookup('Customer', ['twin@example.com'])).toBe(a._id);
    // and by PUT, one after the other
    const c = { _id: `Customer-${hex()}`, '~class': 'Customer', email: 'twin@example.com', name: 'C', '~createTimestamp': now(), active: true };
    expect((await put(userToken, c)).status).toBe(403);
    expect(await stored(c._id)).toBeNull();
  });
});

describe('who may read what over replication', () => {
  let jobId: string;
  let customerId: string;

  beforeAll(async () => {
    await getApi(stack, jobsPlugin)!.define({ name: 'nightly', handler: 'retention.sweep', params: { className: 'Customer', olderThanDays: 365 } });
    jobId = ((await stack.findDocuments('~Job', { name: 'nightly' }))[0] as { _id: string })._id;
    customerId = (await stack.createDoc({ '~class': 'Customer', email: 'reader@example.com', name: 'Reader' }))._id;
  });

  async function idsSeen(token: string): Promise<{ changes: string[]; allDocs: string[]; bulkGet: string[]; get: Record<string, number> }> {
    const changes = (await request('GET', '/db/docstack/_changes?limit=100000', token)).body.results as { id: string }[];
    const allDocs = (await request('GET', '/db/docstack/_all_docs', token)).body.rows as { id: string }[];
    const asked = [jobId, '~Job', '~User', customerId, 'Customer', '~self'];
    const bulkGet = (await request('POST', '/db/docstack/_bulk_get', token, { docs: asked.map((id) => ({ id })) })).body.results as { id: string; docs: { ok?: unknown }[] }[];
    const get: Record<string, number> = {};
    for (const id of asked) get[id] = (await fetch(`${url}/db/docstack/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } })).status;
    return {
      changes: changes.map((c) => c.id),
      allDocs: allDocs.map((r) => r.id),
      bulkGet: bulkGet.filter((r) => r.docs.some((d) => d.ok)).map((r) => r.id),
      get,
    };
  }

  it('a user reads application documents, class and domain documents — never internal ones', async () => {
    const seen = await idsSeen(userToken);
    for (const list of [seen.changes, seen.allDocs]) {
      expect(list).toContain(customerId);
      expect(list).toContain('Customer');
      expect(list).toContain('class');
      expect(list.filter((id) => id.startsWith('~'))).toEqual([]);
    }
    expect(seen.bulkGet.sort()).toEqual([customerId, 'Customer'].sort());
    expect(seen.get).toMatchObject({ [customerId]: 200, Customer: 200, [jobId]: 404, '~Job': 404, '~User': 404, '~self': 404 });
  });

  it('an admin also reads the engine documents, but never users or sessions', async () => {
    const seen = await idsSeen(adminToken);
    for (const list of [seen.changes, seen.allDocs]) {
      expect(list).toContain(jobId);
      expect(list).toContain(customerId);
      expect(list.filter((id) => id.startsWith('~User'))).toEqual([]);
    }
    expect(seen.bulkGet).toContain(jobId);
    expect(seen.get).toMatchObject({ [jobId]: 200, '~User': 404 });
  });
});
