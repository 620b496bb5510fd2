import PouchDB from 'pouchdb-core';
import httpAdapter from 'pouchdb-adapter-http';
import memoryAdapter from 'pouchdb-adapter-memory';
import replication from 'pouchdb-replication';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/stack.js';
import { login, testNode } from './node-helpers.js';

PouchDB.plugin(memoryAdapter);
if (!(PouchDB as unknown as { adapters: Record<string, unknown> }).adapters.http) PouchDB.plugin(httpAdapter);
if (typeof (PouchDB as unknown as { replicate?: unknown }).replicate !== 'function') PouchDB.plugin(replication);

describe('the node end to end (createServerNode, real login, stock PouchDB)', () => {
  it('a client logs in, defines a class through the seed route, pushes and pulls documents; an invalid one is refused', async () => {
    const { node } = await testNode();
    const { url } = await node.start();
    const { token } = await login(url);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/private/create-class/Note`, { method: 'POST', headers: auth, body: JSON.stringify({ description: 'notes', schema: { text: { type: 'string', mandatory: true, maxLength: 20 } } }) });
    expect(created.status).toBe(201);

    const remote = new PouchDB(`${url}/db/docstack`, {
      fetch: (u: string | Request, opts?: RequestInit) => {
        const headers = new Headers(opts?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return (PouchDB as unknown as { fetch: typeof fetch }).fetch(u, { ...opts, headers });
      },
      skip_setup: true,
    } as never);
    const local = new PouchDB(uniqueName('client'), { adapter: 'memory' });
    const now = new Date().toISOString();
    const good = Array.from({ length: 50 }, (_, i) => ({ _id: `Note-${i}`, '~class': 'Note', text: `note ${i}`, '~createTimestamp': now, active: true }));
    const bad = { _id: 'Note-bad', '~class': 'Note', text: 'x'.repeat(50), '~createTimestamp': now, active: true };
    await local.bulkDocs([...good, bad]);
    const push = await local.replicate.to(remote);
    expect(push.docs_written).toBe(50);
    expect(push.doc_write_failures).toBe(1);
    expect((await fetch(`${url}/db/docstack/Note-bad`, { headers: auth })).status).toBe(404);
    const pulled = new PouchDB(uniqueName('pull'), { adapter: 'memory' });
    await pulled.replicate.from(remote);
    const notes = await pulled.allDocs({ startkey: 'Note-', endkey: 'Note-\uffff' });
    expect(notes.rows).toHaveLength(50);
    const anonymous = await fetch(`${url}/db/docstack`);
    expect(anonymous.status).toBe(401);
    await Promise.all([remote.close(), local.destroy(), pulled.destroy()]);
  });

  it('refuses a pushed document whose primary key another document owns, storing the rest of the batch', async () => {
    const { node } = await testNode();
    const { url } = await node.start();
    const { token } = await login(url);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${url}/api/private/create-class/Tag`, { method: 'POST', headers: auth, body: JSON.stringify({ schema: { code: { type: 'string', primaryKey: true } } }) });
    const server = (node as unknown as { openStack: import('../../engine/client-stack.js').ClientStack }).openStack;
    await server.createDoc({ '~class': 'Tag', code: 'red' });
    const now = new Date().toISOString();
    const res = await fetch(`${url}/db/docstack/_bulk_docs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        new_edits: false,
        docs: [
          { _id: 'Tag-dup', _rev: '1-aaaa', '~class': 'Tag', code: 'red', '~createTimestamp': now, active: true },
          { _id: 'Tag-new', _rev: '1-bbbb', '~class': 'Tag', code: 'blue', '~createTimestamp': now, active: true },
        ],
      }),
    });
    const answer = (await res.json()) as { id: string; error?: string }[];
    expect(answer.find((r) => r.id === 'Tag-dup')?.error).toBe('forbidden');
    expect(answer.find((r) => r.id === 'Tag-new')?.error).toBeUndefined();
    expect(await server.getDocument('Tag-dup')).toBeNull();
    expect((await (await server.getClass('Tag')).getByPrimaryKeys({ code: 'blue' }))?._id).toBe('Tag-new');
  });
});
