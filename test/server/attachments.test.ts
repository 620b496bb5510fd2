/**
 * Attachments through the node (docs/attachments.md): two devices' stacks sync a 5 MB photo
 * through a real node; stock PouchDB as a peer pushes good and bad files (4xx, the node lives);
 * the document API serves and takes files with auth; quotas count file bytes.
 */
import { describe, expect, it } from 'vitest';
import PouchDB from 'pouchdb-core';
import HttpAdapter from 'pouchdb-adapter-http';
import MemoryAdapter from 'pouchdb-adapter-memory';
import Replication from 'pouchdb-replication';
import { Class, createStack } from '../../index.js';
import { browser } from '../../plugins.config.js';
import { createUser } from '../../server/auth/index.js';
import { track, uniqueName } from '../helpers/stack.js';
import { login, testNode } from './node-helpers.js';

PouchDB.plugin(HttpAdapter).plugin(MemoryAdapter).plugin(Replication);

const ANN = { username: 'ann', password: 'ann password for tests' };

const SCHEMA = {
  title: { type: 'string' },
  photo: { type: 'attachment', maxBytes: 6 * 1024 * 1024, types: ['image/*'] },
  sealed: { type: 'attachment', encrypted: true, types: ['image/png'] },
};

function photo(bytes: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 65_536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(bytes, i + 65_536)));
  return out;
}
const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function startNode() {
  const { node } = await testNode();
  const { url } = await node.start();
  await createUser(node.stack(), ANN.username, ANN.password);
  await Class.create(node.stack(), 'Visit', 'class', '', SCHEMA as never);
  return { node, url, db: `${url}/db/docstack` };
}

const device = async () => track(await createStack({ name: uniqueName('device'), adapter: 'memory', plugins: browser }));

describe('attachments through the node', () => {
  it('a 5 MB photo round-trips two devices through the node; a sealed one stays sealed on the node', async () => {
    const { node, db } = await startNode();
    const a = await device();
    const b = await device();
    await a.unlock('one passphrase for both devices');
    expect((await a.sync({ remote: db, auth: ANN })).ok).toBe(true); // the class arrives
    const visit = await a.createDoc({ '~class': 'Visit', title: 'boiler' });
    const bytes = photo(5 * 1024 * 1024);
    await a.putAttachment(visit._id, 'photo', bytes, 'image/jpeg');
    const secret = new Uint8Array(4096).fill(7);
    await a.putAttachment(visit._id, 'sealed', secret, 'image/png');
    const pushed = await a.sync({ remote: db, auth: ANN });
    expect(pushed.refused).toEqual([]);
    expect(pushed.ok).toBe(true);

    const onNode = await node.stack().getAttachment(visit._id, 'photo');
    expect(same(onNode.data as Uint8Array, bytes)).toBe(true);
    await expect(node.stack().getAttachment(visit._id, 'sealed')).rejects.toMatchObject({ code: 'DS_ENCRYPTION_LOCKED' });
    const stored = (await node.stack().storage.attachment(visit._id, 'sealed'))!;
    expect(Buffer.from(stored).includes(Buffer.from(secret.subarray(0, 64)))).toBe(false);

    expect((await b.sync({ remote: db, auth: ANN })).ok).toBe(true);
    const onB = await b.getAttachment(visit._id, 'photo');
    expect(onB).toMatchObject({ contentType: 'image/jpeg', length: bytes.byteLength });
    expect(same(onB.data as Uint8Array, bytes)).toBe(true);
    await b.unlock('one passphrase for both devices'); // the keyring travelled with the data
    expect(same((await b.getAttachment(visit._id, 'sealed')).data as Uint8Array, secret)).toBe(true);

    // an edit on B that keeps the file travels back without it being sent again
    await b.updateDoc(visit._id, { title: 'boiler, fixed' });
    expect((await b.sync({ remote: db, auth: ANN })).ok).toBe(true);
    expect((await a.sync({ remote: db, auth: ANN })).ok).toBe(true);
    expect(await a.getDocument(visit._id)).toMatchObject({ title: 'boiler, fixed' });
    expect(same((await a.getAttachment(visit._id, 'photo')).data as Uint8Array, bytes)).toBe(true);
  });

  it('a bad or oversized file from a stock PouchDB peer gets a 4xx, nothing stored, and the node lives on', async () => {
    const { url, db } = await startNode();
    const { token } = await login(url, ANN.username, ANN.password);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const peerDoc = (n: number, attachments: unknown) => ({
      _id: `Visit-peer-${n}`, _rev: '1-0123456789abcdef', _revisions: { start: 1, ids: ['0123456789abcdef'] },
      '~class': 'Visit', '~createTimestamp': new Date().toISOString(), active: true, title: `peer ${n}`, _attachments: attachments,
    });
    const cases: Array<[string, unknown]> = [
      ['not base64', { photo: { content_type: 'image/png', data: 'not base64 !' } }],
      ['data that is a number', { photo: { content_type: 'image/png', data: 12 } }],
      ['an unknown field', { photo: { content_type: 'image/png', data: 'aGk=', follows: true } }],
      ['a name that is no attachment attribute', { title: { content_type: 'image/png', data: 'aGk=' } }],
      ['a type outside the allowlist', { photo: { content_type: 'text/html', data: 'aGk=' } }],
      ['a stub of a file the node does not hold', { photo: { content_type: 'image/png', stub: true, digest: 'md5-AAAAAAAAAAAAAAAAAAAAAA==' } }],
      ['a file above maxBytes', { photo: { content_type: 'image/png', data: base64(photo(6 * 1024 * 1024 + 1)) } }],
    ];
    for (const [i, [what, attachments]] of cases.entries()) {
      const bulk = await fetch(`${db}/_bulk_docs`, { method: 'POST', headers, body: JSON.stringify({ docs: [peerDoc(i, attachments)], new_edits: false }) });
      const lines = (await bulk.json()) as Array<{ error?: string; ok?: boolean }>;
      expect(lines[0]?.error, what).toBeDefined();
      const put = await fetch(`${db}/Visit-peer-${i}?new_edits=false`, { method: 'PUT', headers, body: JSON.stringify(peerDoc(i, attachments)) });
      expect(put.status, what).toBeGreaterThanOrEqual(400);
      expect(put.status, what).toBeLessThan(500);
      expect((await fetch(`${db}/Visit-peer-${i}`, { headers })).status, what).toBe(404);
    }
    // past ATTACHMENT_BODY_LIMIT (16 MiB): 413
    const huge = await fetch(`${db}/_bulk_docs`, { method: 'POST', headers, body: JSON.stringify({ docs: [peerDoc(99, { photo: { content_type: 'image/png', data: 'A'.repeat(17 * 1024 * 1024) } })] }) });
    expect(huge.status).toBe(413);
    expect((await fetch(`${url}/health`)).status).toBe(200);

    // a good one from stock PouchDB's replicator: stored, and served back to another peer
    const peer = new PouchDB(`peer-${uniqueName()}`, { adapter: 'memory' });
    const bytes = photo(300_000);
    await peer.bulkDocs([peerDoc(100, { photo: { content_type: 'image/webp', data: base64(bytes) } })] as never[], { new_edits: false });
    const remote = new PouchDB(db, { fetch: (u: string, o: { headers: Headers }) => (o.headers.set('Authorization', `Bearer ${token}`), PouchDB.fetch(u, o as never)) } as never);
    const out = await peer.replicate.to(remote, { doc_ids: ['Visit-peer-100'] });
    expect(out.docs_written).toBe(1);
    const back = new PouchDB(`back-${uniqueName()}`, { adapter: 'memory' });
    await back.replicate.from(remote, { doc_ids: ['Visit-peer-100'] });
    const file = new Uint8Array((await back.getAttachment('Visit-peer-100', 'photo')) as unknown as ArrayBuffer);
    expect(same(file, bytes)).toBe(true);
  });

  it('the document API serves and takes files with auth; quotas count their bytes', async () => {
    const { node, url } = await startNode();
    const { token } = await login(url, ANN.username, ANN.password);
    const admin = (await login(url)).token;
    const auth = { authorization: `Bearer ${token}` };
    const created = (await (await fetch(`${url}/api/private/docs/Visit`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'api' }) })).json()) as { _id: string };
    const path = `${url}/api/private/docs/Visit/${created._id}/attachments/photo`;
    const bytes = photo(5 * 1024 * 1024);
    const put = await fetch(path, { method: 'PUT', headers: { ...auth, 'content-type': 'image/jpeg' }, body: bytes });
    expect(put.status).toBe(201);
    expect(await put.json()).toMatchObject({ _attachments: { photo: { content_type: 'image/jpeg', length: bytes.byteLength } } });
    const got = await fetch(path, { headers: auth });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    expect(same(new Uint8Array(await got.arrayBuffer()), bytes)).toBe(true);
    expect((await fetch(path)).status).toBe(401); // no session
    const refused = await fetch(path, { method: 'PUT', headers: { ...auth, 'content-type': 'application/pdf' }, body: new Uint8Array([1]) as Uint8Array<ArrayBuffer> });
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ code: 'DS_ATTACHMENT_TYPE' });
    expect((await fetch(`${url}/api/private/docs/Visit/${created._id}/attachments/title`, { method: 'PUT', headers: { ...auth, 'content-type': 'image/png' }, body: new Uint8Array([1]) as Uint8Array<ArrayBuffer> })).status).toBe(400);
    expect((await fetch(`${url}/api/private/docs/Visit/${created._id}/attachments/sealed`, { method: 'PUT', headers: { ...auth, 'content-type': 'image/png' }, body: new Uint8Array([1]) as Uint8Array<ArrayBuffer> })).status).toBeGreaterThanOrEqual(400);

    // a quota in bytes: the next file past it is refused, the one stored counted in full
    const ann = (await node.stack().findDocuments('~User', { username: 'ann' }))[0]!;
    const quota = await fetch(`${url}/api/private/quotas`, { method: 'PUT', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ scope: 'user', subject: ann._id, maxBytes: 6 * 1024 * 1024 }) });
    expect(quota.status).toBe(200);
    const second = (await (await fetch(`${url}/api/private/docs/Visit`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'second' }) })).json()) as { _id: string };
    const over = await fetch(`${url}/api/private/docs/Visit/${second._id}/attachments/photo`, { method: 'PUT', headers: { ...auth, 'content-type': 'image/png' }, body: photo(2 * 1024 * 1024) });
    expect(await over.json()).toMatchObject({ code: 'DS_QUOTA_EXCEEDED' });
    const del = await fetch(path, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(200);
    expect((await fetch(path, { headers: auth })).status).toBe(404);
  });
});
