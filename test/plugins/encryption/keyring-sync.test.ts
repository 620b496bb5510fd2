import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { browser, type BrowserStack, type ServerStack } from '../../../plugins.config.js';
import { unwrapWithPrivateKey } from '../../../plugins/encryption/crypto.js';
import { createUser } from '../../../server/auth/index.js';
import type { ServerNode } from '../../../server/node.js';
import { expectRefused, track, uniqueName } from '../../helpers/stack.js';
import { fileNode, login } from '../../server/node-helpers.js';

const PASSPHRASE = 'ann: correct horse battery staple';
const ANN = { username: 'ann', password: 'ann password for tests' };
const BOB = { username: 'bob', password: 'bob password for tests' };
/** the user of the offline and passphrase tests: each test with its own passphrase, so its keyrings stay its own */
const CAROL = { username: 'carol', password: 'carol password for tests' };

let node: ServerNode;
let url: string;
let remote: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  node = await fileNode({ config: { stackName: 'docstack' } });
  url = (await node.start()).url;
  remote = `${url}/db/docstack`;
  // ann and carol push their own classes (the schema is an admin's); bob is a plain user.
  // Password hashing is the slow part: users made and logged in side by side
  await Promise.all([createUser(node.stack(), ANN.username, ANN.password, 'admin'), createUser(node.stack(), BOB.username, BOB.password), createUser(node.stack(), CAROL.username, CAROL.password, 'admin')]);
  const logins = [ANN, BOB, CAROL, { username: 'admin', password: 'admin password for tests' }];
  await Promise.all(logins.map(async (who) => (tokens[who.username] = (await login(url, who.username, who.password)).token)));
});
afterAll(async () => {
  await node.stop();
});

const device = async (): Promise<BrowserStack> => track(await createStack({ name: uniqueName('device'), adapter: 'memory', plugins: browser }));
const syncAs = async (stack: BrowserStack, who = 'ann') => {
  await stack.sync({ remote, auth: { token: tokens[who] } });
};
const call = async (token: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${remote}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const storedOnNode = (id: string) => node.stack().storage.get<Record<string, unknown>>(id);

/** The raw bytes of every key of a scope, through an RSA export only the test can open. */
async function rawKeys(stack: BrowserStack, scope: string): Promise<Uint8Array[]> {
  const pair = (await crypto.subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['wrapKey', 'unwrapKey'])) as CryptoKeyPair;
  const bundle = await stack.keyring.exportScope(scope, { publicKey: pair.publicKey });
  const out: Uint8Array[] = [];
  for (const k of bundle.keys) out.push(new Uint8Array(await crypto.subtle.exportKey('raw', await unwrapWithPrivateKey(k.wrapped, pair.privateKey, ['encrypt', 'decrypt'], true))));
  return out;
}

describe('keys that travel', () => {
  it("a second device of the same user reads what the first sealed; the node holds only the wrapped keyring, and nobody else reads or writes it", async () => {
    const sync = (stack: BrowserStack) => syncAs(stack, 'ann');
    const a = await device();
    await a.unlock(PASSPHRASE);
    await Class.create(a, 'Visit', 'class', '', { site: { type: 'string' }, notes: { type: 'string', encrypted: true } });
    const visit = await a.createDoc({ '~class': 'Visit', site: 'north', notes: 'gate code 4411' });
    const keyringId = a.keyring.id!;
    expect(keyringId).toMatch(/^~Keyring-.{20,}$/);
    await sync(a);

    // the node stores ann's keyring as it was pushed, wrapped: no raw key, no passphrase, and it opens nothing
    const onNode = await storedOnNode(keyringId);
    expect(onNode).toMatchObject({ '~class': '~Keyring', stackKey: expect.any(Object), scopes: { default: expect.any(Object) } });
    const text = JSON.stringify(onNode);
    for (const raw of await rawKeys(a, 'default')) {
      expect(text).not.toContain(Buffer.from(raw).toString('base64'));
      expect(text).not.toContain(Buffer.from(raw).toString('hex'));
    }
    expect(text).not.toContain(PASSPHRASE);
    expect((await node.stack().getDocument(visit._id))?.notes).toEqual({ '~sealed': true, scope: 'default' });
    const nodeStack = node.stack() as ServerStack;
    await expectRefused(nodeStack.unlock('a guess'), 'DS_ENCRYPTION_PASSPHRASE');
    expect(nodeStack.keyring.unlocked).toBe(false);
    expect((await node.stack().storage.range({ prefix: '~Keyring-' })).map((r) => r.id)).toEqual([keyringId]); // the failed unlock made none

    // device B: fresh, syncs, then unlocks with the passphrase (it creates no keyring of its own)
    const b = await device();
    const arrived: unknown[] = [];
    b.on('change', (e: { id: string; className: string; origin: string }) => {
      if (e.id === keyringId) arrived.push({ className: e.className, origin: e.origin });
    });
    await sync(b);
    // the keyring came through the ordinary ingest path (the one every pulled document takes)
    expect(arrived).toEqual([{ className: '~Keyring', origin: 'replication' }]);
    expect((await b.getDocument(visit._id))?.notes).toEqual({ '~sealed': true, scope: 'default' });
    await expectRefused(b.unlock('not the passphrase'), 'DS_ENCRYPTION_PASSPHRASE');
    await b.unlock(PASSPHRASE);
    expect(b.keyring.id).toBe(keyringId);
    expect((await b.getDocument(visit._id))?.notes).toBe('gate code 4411');

    // ann reads her keyring by every route: the control that makes the refusals below mean something
    expect((await call(tokens.ann, 'GET', `/${encodeURIComponent(keyringId)}`)).status).toBe(200);
    const rev = String(onNode!._rev);
    for (const who of ['bob', 'admin']) {
      const token = tokens[who];
      expect((await call(token, 'GET', `/${encodeURIComponent(keyringId)}`)).status, who).toBe(404);
      expect((await call(token, 'GET', `/${encodeURIComponent(keyringId)}?open_revs=all`)).status, who).toBe(404);
      const bulkGet = await call(token, 'POST', '/_bulk_get?revs=true', { docs: [{ id: keyringId }] });
      expect(JSON.stringify(bulkGet.body), who).not.toContain('"stackKey"');
      expect(bulkGet.body, who).toMatchObject({ results: [{ id: keyringId, docs: [{ error: { error: 'not_found' } }] }] });
      const allDocs = await call(token, 'GET', `/_all_docs?include_docs=true&keys=${encodeURIComponent(JSON.stringify([keyringId]))}`);
      expect(allDocs.body.rows, who).toEqual([{ key: keyringId, error: 'not_found' }]);
      const range = await call(token, 'GET', `/_all_docs?startkey=${encodeURIComponent('"~"')}&endkey=${encodeURIComponent('"~\uffff"')}`);
      expect(JSON.stringify(range.body), who).not.toContain(keyringId);
      const changes = await call(token, 'GET', '/_changes?include_docs=true&style=all_docs');
      expect(changes.status).toBe(200);
      expect(JSON.stringify(changes.body), who).not.toContain(keyringId);
      const selector = await call(token, 'POST', '/_changes?filter=_selector&include_docs=true', { selector: { '~class': '~Keyring' } });
      expect(JSON.stringify(selector.body), who).not.toContain(keyringId);

      // nor overwrite it: _bulk_docs (with and without new_edits) and PUT, stored revision unchanged
      const forged = { ...onNode, scopes: {} };
      const pushed = await call(token, 'POST', '/_bulk_docs', { docs: [{ ...forged, _rev: '9-ffffffffffffffffffffffffffffffff', _revisions: { start: 9, ids: ['ffffffffffffffffffffffffffffffff'] } }], new_edits: false });
      expect(pushed.body, who).toEqual([expect.objectContaining({ id: keyringId, error: 'forbidden', code: 'DS_AUTHZ_KEYRING' })]);
      const edited = await call(token, 'POST', '/_bulk_docs', { docs: [forged] });
      expect(edited.body, who).toEqual([expect.objectContaining({ id: keyringId, error: 'forbidden', code: 'DS_AUTHZ_KEYRING' })]);
      const put = await call(token, 'PUT', `/${encodeURIComponent(keyringId)}?rev=${rev}`, { ...forged, _rev: undefined });
      expect(put, who).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_KEYRING' } });
      const deleted = await call(token, 'POST', '/_bulk_docs', { docs: [{ _id: keyringId, _rev: rev, _deleted: true }] });
      expect(deleted.body, who).toEqual([expect.objectContaining({ id: keyringId, code: 'DS_AUTHZ_KEYRING' })]);
      const now = await storedOnNode(keyringId);
      expect(now?._rev, who).toBe(rev);
      expect(now?.scopes, who).toEqual(onNode!.scopes);
    }

    // nor through the document API or SQL (admins included): those never serve a keyring
    const api = async (token: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/api/private${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: res.status, text: await res.text() };
    };
    for (const who of ['ann', 'admin']) {
      const listed = await api(tokens[who], 'GET', '/docs/~Keyring');
      expect(listed.status, who).toBe(404);
      expect((await api(tokens[who], 'GET', `/docs/~Keyring/${encodeURIComponent(keyringId)}`)).status, who).toBe(404);
      expect((await api(tokens[who], 'POST', '/docs/~Keyring', { scopes: {} })).status, who).toBe(404);
      const sql = await api(tokens[who], 'POST', '/sql', { statement: 'SELECT * FROM [~Keyring]' });
      expect(sql.status, who).toBeGreaterThanOrEqual(400);
      expect(sql.text, who).not.toContain('stackKey');
    }
    expect((await node.stack().storage.range({ prefix: '~Keyring-' })).map((r) => r.id)).toEqual([keyringId]);

    // bob's own keyring travels too, and stays his: ann's next device never receives it
    const bobsDevice = await device();
    await bobsDevice.unlock('bob has his own passphrase');
    await syncAs(bobsDevice, 'bob');
    const bobsKeyring = bobsDevice.keyring.id!;
    expect(await storedOnNode(bobsKeyring)).not.toBeNull();
    expect((await call(tokens.bob, 'GET', `/${encodeURIComponent(bobsKeyring)}`)).status).toBe(200);
    expect((await call(tokens.ann, 'GET', `/${encodeURIComponent(bobsKeyring)}`)).status).toBe(404);
    const c = await device();
    await sync(c);
    expect((await c.storage.range({ prefix: '~Keyring-' })).map((r) => r.id)).toEqual([keyringId]);
    // a classes-filtered sync carries the user's keyrings (and only theirs) with the classes it names
    const d = await device();
    await d.sync({ remote, auth: { token: tokens.ann }, classes: ['Visit'] });
    expect((await d.storage.range({ prefix: '~Keyring-' })).map((r) => r.id)).toEqual([keyringId]);
    await d.unlock(PASSPHRASE);
    expect(d.keyring.id).toBe(keyringId);
    expect((await d.getDocument(visit._id))?.notes).toBe('gate code 4411');
    // bob's device did not get ann's keyring either (and cannot read her visit)
    expect(await bobsDevice.storage.get(keyringId)).toBeNull();
    expect((await bobsDevice.getDocument(visit._id))?.notes).toEqual({ '~sealed': true, scope: 'default' });
  });

  it('two devices that each made a keyring offline, then changed the merged one offline, converge to one keyring that opens both sides', async () => {
    const sync = (stack: BrowserStack) => syncAs(stack, 'carol');
    const PASSPHRASE = 'carol: offline twice';
    const a = await device();
    const b = await device();
    await a.unlock(PASSPHRASE);
    await b.unlock(PASSPHRASE); // offline: a keyring of its own
    expect(a.keyring.id).not.toBe(b.keyring.id);
    await Class.create(a, 'Memo', 'class', '', { text: { type: 'string', encrypted: true } });
    await Class.create(b, 'Jot', 'class', '', { text: { type: 'string', encrypted: true } });
    // both make a scope "team", each with its own key, and seal under it
    await a.keyring.createScope('team');
    await b.keyring.createScope('team');
    const memo = await a.createDoc({ '~class': 'Memo', text: 'from a, default' });
    const memoTeam = await a.createDoc({ '~class': 'Memo', text: 'from a, team', '~scope': 'team' });
    const jot = await b.createDoc({ '~class': 'Jot', text: 'from b, default' });
    const jotTeam = await b.createDoc({ '~class': 'Jot', text: 'from b, team', '~scope': 'team' });

    await sync(a);
    await sync(b); // b pulls a's keyring while unlocked: merged on arrival
    await sync(a);
    const everything = async (stack: BrowserStack) => Promise.all([memo, memoTeam, jot, jotTeam].map(async (d) => (await stack.getDocument(d._id))?.text));
    const plain = ['from a, default', 'from a, team', 'from b, default', 'from b, team'];
    expect(await everything(a)).toEqual(plain);
    expect(await everything(b)).toEqual(plain);
    await sync(b);
    await sync(a);
    expect(a.keyring.id).toBe(b.keyring.id); // one primary: the smaller id
    const primary = a.keyring.id!;

    // offline again, both change the primary: conflicting revisions of one keyring document
    await a.keyring.createScope('a-only');
    await b.keyring.createScope('b-only');
    const aOnly = await a.createDoc({ '~class': 'Memo', text: 'a only', '~scope': 'a-only' });
    const bOnly = await b.createDoc({ '~class': 'Jot', text: 'b only', '~scope': 'b-only' });
    await sync(a);
    await sync(b);
    await sync(a);
    expect((await a.getDocument(bOnly._id))?.text).toBe('b only');
    expect((await b.getDocument(aOnly._id))?.text).toBe('a only');
    expect(await a.keyring.scopes()).toEqual(['a-only', 'b-only', 'default', 'team']);
    expect((await a.storage.replication.get(primary, { conflicts: true }))._conflicts ?? []).toEqual([]);

    // a fresh device converges on the same keyring and reads both sides with the passphrase alone
    await sync(b);
    const c = await device();
    await sync(c);
    await c.unlock(PASSPHRASE);
    expect(c.keyring.id).toBe(primary);
    expect(await everything(c)).toEqual(plain);
    expect([(await c.getDocument(aOnly._id))?.text, (await c.getDocument(bOnly._id))?.text]).toEqual(['a only', 'b only']);
    expect(await c.storage.range({ prefix: '~Keyring-' })).toHaveLength(2); // the merged one stays, covered: c never opened it
  });

  it('a passphrase change and a rotation on one device reach the other, which keeps reading', async () => {
    // carol's keyrings of the test above reach these devices too: this passphrase opens none of them
    const sync = (stack: BrowserStack) => syncAs(stack, 'carol');
    const PASSPHRASE = 'carol: before the change';
    const a = await device();
    await a.unlock(PASSPHRASE);
    await Class.create(a, 'Card', 'class', '', { pan: { type: 'string', encrypted: true } });
    const card = await a.createDoc({ '~class': 'Card', pan: '4111 1111' });
    await sync(a);
    const b = await device();
    await sync(b);
    await b.unlock(PASSPHRASE);

    await expectRefused(a.keyring.changePassphrase('wrong', 'carol: after the change'), 'DS_ENCRYPTION_PASSPHRASE');
    await a.keyring.changePassphrase(PASSPHRASE, 'carol: after the change');
    // only the card: the other test's documents under carol's other keyrings' "default" keys are not this keyring's to rewrite
    const progress = await a.keyring.rotateScope('default');
    expect(progress).toMatchObject({ done: 1, total: 1 });
    await sync(a);
    await sync(b);
    // b, still unlocked, reads the card sealed under the new key: the key came with the keyring
    expect((await b.getDocument(card._id))?.pan).toBe('4111 1111');
    const written = await b.createDoc({ '~class': 'Card', pan: '5500 0000' });
    b.lock();
    await expectRefused(b.unlock(PASSPHRASE), 'DS_ENCRYPTION_PASSPHRASE');
    await b.unlock('carol: after the change');
    expect((await b.getDocument(card._id))?.pan).toBe('4111 1111');
    await sync(b);
    await sync(a);
    expect((await a.getDocument(written._id))?.pan).toBe('5500 0000');
  });
});
