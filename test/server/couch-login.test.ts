import { afterEach, describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { createUser } from '../../server/auth/index.js';
import { PouchDB } from '../plugins/sync/harness.js';
import { uniqueName } from '../helpers/stack.js';
import { ADMIN, login, testNode } from './node-helpers.js';

/**
 * Stock CouchDB clients log in the CouchDB way: HTTP Basic on /db/* (stock PouchDB with
 * `auth: { username, password }`) and the cookie session endpoint /_session. A real node
 * (leveldb, 127.0.0.1, port 0) and stock PouchDB (memory adapter) as the client.
 */
const USER = { username: 'basil', password: 'basil password for tests' };
const clients: PouchDB.Database[] = [];
afterEach(async () => {
  for (const db of clients.splice(0)) await db.destroy().catch(() => undefined);
});

async function nodeWithNotes(config: Record<string, unknown> = {}, clock?: () => number) {
  const { node, lines } = await testNode({ config: config as never, ...(clock ? { clock } : {}) });
  const { url } = await node.start();
  await createUser(node.stack(), USER.username, USER.password);
  await Class.create(node.stack(), 'Note', 'class', '', { text: { type: 'string', mandatory: true, maxLength: 40 } });
  return { node, url, lines, remote: `${url}/db/docstack` };
}

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

function note(i: number) {
  return { _id: `Note-${String(i).padStart(5, '0')}`, '~class': 'Note', '~createTimestamp': new Date().toISOString(), active: true, text: `note ${i}` };
}

describe('HTTP Basic auth on /db/*', () => {
  it('stock PouchDB with auth: { username, password } pushes and pulls 1,000 documents', async () => {
    const { node, remote } = await nodeWithNotes();
    const local = new PouchDB(uniqueName('basic-push'), { adapter: 'memory' });
    clients.push(local);
    await local.bulkDocs(Array.from({ length: 1000 }, (_, i) => note(i)));
    const target = new PouchDB(remote, { adapter: 'http', auth: USER } as never);
    const pushed = await local.replicate.to(target);
    expect(pushed.docs_written).toBe(1000);
    expect(pushed.doc_write_failures).toBe(0);
    expect(await node.stack().findDocuments('Note', {}, { limit: 2000 })).toHaveLength(1000);

    const other = new PouchDB(uniqueName('basic-pull'), { adapter: 'memory' });
    clients.push(other);
    await other.replicate.from(new PouchDB(remote, { adapter: 'http', auth: USER } as never));
    const pulled = await other.allDocs({ startkey: 'Note-', endkey: 'Note-\uffff' });
    expect(pulled.rows).toHaveLength(1000);
  }, 60_000);

  it('checks the password once per client (one session), refuses a wrong one with 401, and a disabled user at once', async () => {
    const { node, url, remote } = await nodeWithNotes();
    const auth = { authorization: basic(USER.username, USER.password) };
    for (let i = 0; i < 5; i++) expect((await fetch(remote, { headers: auth })).status).toBe(200);
    const sessions = await node.stack().findDocuments('~UserSession', { username: USER.username });
    expect(sessions).toHaveLength(1); // five requests, one verification, one session

    const wrong = await fetch(remote, { headers: { authorization: basic(USER.username, 'not the password') } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'unauthorized', code: 'DS_AUTH_REQUIRED' });

    const admin = (await login(url)).token;
    const disabled = await fetch(`${url}/api/private/users/${USER.username}/disable`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } });
    expect(disabled.status).toBe(200);
    expect((await fetch(remote, { headers: auth })).status).toBe(401); // the very next request
  });

  it('keeps a long-running Basic client working past its session lifetime (the password is checked again)', async () => {
    let skew = 0; // the node's clock, moved forward instead of waiting
    const { node, remote } = await nodeWithNotes({ jwtTtl: 60 }, () => Date.now() + skew);
    const auth = { authorization: basic(USER.username, USER.password) };
    expect((await fetch(remote, { headers: auth })).status).toBe(200);
    const [session] = await node.stack().findDocuments('~UserSession', { username: USER.username });
    skew = 61_000; // past the 60 s session (and JWT) lifetime
    expect((await fetch(remote, { headers: auth })).status).toBe(200);
    skew = 125_000; // and past the second one
    expect((await fetch(remote, { headers: auth })).status).toBe(200);
    const sessions = await node.stack().findDocuments('~UserSession', { username: USER.username });
    expect(sessions.map((s) => s._id)).toContain(session._id);
    expect(sessions.length).toBe(3); // each expired session was replaced by a fresh one
  });
});

describe('CouchDB /_session', () => {
  for (const path of ['/_session', '/db/_session']) {
    it(`logs in with JSON or a form at ${path}, answers userCtx, and logs out`, async () => {
      const { url, remote } = await nodeWithNotes();
      const json = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: USER.username, password: USER.password }) });
      expect(json.status).toBe(200);
      expect(await json.json()).toEqual({ ok: true, name: USER.username, roles: ['user'] });
      const cookie = /jwtToken=[^;]+/.exec(json.headers.get('set-cookie') ?? '')![0];

      const form = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `name=${ADMIN.username}&password=${encodeURIComponent(ADMIN.password)}` });
      expect(await form.json()).toEqual({ ok: true, name: ADMIN.username, roles: ['_admin', 'admin'] });

      const me = await fetch(`${url}${path}`, { headers: { cookie } });
      expect(await me.json()).toMatchObject({ ok: true, userCtx: { name: USER.username, roles: ['user'] } });
      expect((await fetch(remote, { headers: { cookie } })).status).toBe(200); // the cookie opens /db

      const anonymous = await fetch(`${url}${path}`);
      expect(await anonymous.json()).toMatchObject({ ok: true, userCtx: { name: null, roles: [] } });

      const bad = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: USER.username, password: 'wrong password' }) });
      expect(bad.status).toBe(401);
      expect(await bad.json()).toMatchObject({ error: 'unauthorized', code: 'DS_AUTH_CREDENTIALS' });

      expect((await fetch(`${url}${path}`, { method: 'DELETE', headers: { cookie } })).status).toBe(200);
      expect((await fetch(remote, { headers: { cookie } })).status).toBe(401); // the session ended
    });
  }
});
