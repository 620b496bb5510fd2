import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import type { ServerNode } from '../../server/node.js';
import { userNode } from './node-helpers.js';

/**
 * The replication endpoint answers every malformed request with a CouchDB-shaped 4xx and keeps
 * serving: each case below once ended the node's process (PouchDB throwing inside a callback)
 * or never answered. A real node on a leveldb store, a logged-in `user` (not an admin).
 */
const USER = { username: 'rob', password: 'rob password for tests' };
let node: ServerNode;
let url: string;
let token: string;

beforeAll(async () => {
  ({ node, url, token } = await userNode(USER));
  await Class.create(node.stack(), 'Note', 'class', '', { text: { type: 'string', maxLength: 20 } });
  await node.stack().createDoc({ '~class': 'Note', text: 'kept' }, { id: 'Note-kept' });
});
afterAll(() => node.stop());

async function send(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/db/docstack${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined && raw === undefined ? {} : { 'content-type': 'application/json' }) },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    signal: AbortSignal.timeout(5000), // a request that never answers fails the test
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** After each hostile request: the node still answers, reads and accepts a normal write. */
async function stillServes(): Promise<void> {
  expect((await send('GET', '')).status).toBe(200);
  expect((await send('GET', '/Note-kept')).body).toMatchObject({ text: 'kept' });
  const rev = `1-${Math.random().toString(16).slice(2).padEnd(12, '0')}`;
  const id = `Note-${Math.random().toString(36).slice(2)}`;
  const doc = { _id: id, _rev: rev, _revisions: { start: 1, ids: [rev.slice(2)] }, '~class': 'Note', '~createTimestamp': new Date().toISOString(), active: true, text: 'ok' };
  const pushed = await send('POST', '/_bulk_docs', { docs: [doc], new_edits: false });
  expect(pushed.status).toBe(201);
  expect(pushed.body.filter((line: { error?: string }) => line.error)).toEqual([]);
}

const peerDoc = (extra: Record<string, unknown>) => ({
  _id: `Note-${Math.random().toString(36).slice(2)}`,
  _rev: '1-0123456789abcdef',
  _revisions: { start: 1, ids: ['0123456789abcdef'] },
  '~class': 'Note',
  '~createTimestamp': new Date().toISOString(),
  active: true,
  ...extra,
});

describe('the replication endpoint never crashes and always answers', () => {
  const attachmentData: [string, unknown][] = [
    ['a number', 5],
    ['null', null],
    ['an object', { x: 1 }],
    ['an array', [1, 2]],
    ['a boolean', true],
  ];
  for (const [what, data] of attachmentData) {
    it(`refuses _attachments whose data is ${what}, on _bulk_docs and on PUT`, async () => {
      const doc = peerDoc({ _attachments: { 'f.txt': { content_type: 'text/plain', data } } });
      const bulk = await send('POST', '/_bulk_docs', { docs: [doc], new_edits: false });
      expect(bulk.status).toBe(201);
      expect(bulk.body).toEqual([expect.objectContaining({ id: doc._id, error: 'bad_request' })]);
      const { _rev, _revisions, ...fresh } = doc;
      const put = await send('PUT', `/${doc._id}`, fresh);
      expect(put).toMatchObject({ status: 400, body: { error: 'bad_request' } });
      expect((await send('GET', `/${doc._id}`)).status).toBe(404); // nothing stored
      await stillServes();
    });
  }

  it('refuses a 150k-deep _attachments value and deep nesting anywhere in a document', async () => {
    const deep = `${'['.repeat(150_000)}${']'.repeat(150_000)}`;
    const id = 'Note-deep';
    const raw = `{"docs":[{"_id":"${id}","_rev":"1-abc","_revisions":{"start":1,"ids":["abc"]},"~class":"Note","active":true,"_attachments":{"f":${deep}}}],"new_edits":false}`;
    const bulk = await send('POST', '/_bulk_docs', undefined, raw);
    expect(bulk.status).toBe(201);
    expect(bulk.body).toEqual([expect.objectContaining({ id, error: 'bad_request' })]);
    const deepText = await send('PUT', '/Note-deeper', undefined, `{"~class":"Note","text":${deep}}`);
    expect(deepText).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    await stillServes();
  });

  it('answers _revs_diff with non-array values with a 400', async () => {
    for (const body of [{ 'Note-kept': 5 }, { 'Note-kept': 'abc' }, { 'Note-kept': { a: 1 } }, { 'Note-kept': [1, 2] }, [1, 2], 'text']) {
      const answer = await send('POST', '/_revs_diff', body);
      expect(answer).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    }
    expect((await send('POST', '/_revs_diff', { 'Note-kept': ['1-abc'] })).status).toBe(200);
    await stillServes();
  });

  it('answers GET with ?rev=<unknown>&latest=true (404) and malformed open_revs (400)', async () => {
    expect(await send('GET', '/Note-kept?rev=9-ffffffff&latest=true')).toMatchObject({ status: 404, body: { error: 'not_found' } });
    for (const openRevs of ['{"a":1}', '[1,2]', 'abc', '[]', '"all"', '[null]']) {
      const answer = await send('GET', `/Note-kept?open_revs=${encodeURIComponent(openRevs)}`);
      expect(answer).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    }
    expect((await send('GET', '/Note-kept?rev=not-a-rev')).status).toBe(400);
    expect((await send('GET', '/Note-kept?open_revs=all')).status).toBe(200);
    await stillServes();
  });

  it('answers a _bulk_get whose ids are all hidden, or empty, at once', async () => {
    const hidden = await send('POST', '/_bulk_get', { docs: [{ id: '~User-admin' }, { id: '_local/~primary-keys' }, { id: '~UserSession-x' }] });
    expect(hidden.status).toBe(200);
    expect(hidden.body.results).toHaveLength(3);
    expect(hidden.body.results.every((r: any) => r.docs[0].error?.error === 'not_found')).toBe(true);
    expect(await send('POST', '/_bulk_get', { docs: [] })).toMatchObject({ status: 200, body: { results: [] } });
    expect(await send('POST', '/_bulk_get', { docs: [{ id: 5 }] })).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    await stillServes();
  });

  it('answers malformed _changes and _all_docs parameters with a 400', async () => {
    for (const query of ['since=%7B%22a%22%3A1%7D', 'since=%5B1%5D', 'filter=_doc_ids&doc_ids=%5B1%5D']) {
      expect((await send('GET', `/_changes?${query}`)).status).toBe(400);
    }
    expect((await send('GET', '/_all_docs?startkey=%7B%7D')).status).toBe(400);
    expect((await send('POST', '/_all_docs', { keys: [1, {}] })).status).toBe(400);
    expect((await send('GET', '/_changes?since=0')).status).toBe(200);
    await stillServes();
  });
});
