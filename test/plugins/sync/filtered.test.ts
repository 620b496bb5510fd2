import { afterEach, describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';
import { rawDb, tempDir, track, uniqueName } from '../../helpers/stack.js';
import { ITEM_SCHEMA, startNode, TOKEN, type TestNode } from './harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

type PullResult = { pull?: { docs_read: number; docs_written: number }; push?: { docs_read: number; docs_written: number } };

/** A node (admin token: it may take class documents) with Items, Notes and Tags; a fresh client. */
async function setup(): Promise<{ server: TestNode; client: BrowserStack; items: string[]; notes: string[]; tags: string[] }> {
  const server = await startNode(await tempDir(), { role: 'admin' });
  nodes.push(server);
  await Class.create(server.stack, 'Item', 'class', '', ITEM_SCHEMA);
  await Class.create(server.stack, 'Note', 'class', '', { text: { type: 'string' } });
  await Class.create(server.stack, 'Tag', 'class', '', { label: { type: 'string' } });
  const items = (await server.stack.createDocs([1, 2, 3].map((n) => ({ '~class': 'Item', title: `item ${n}`, n })))).map((d) => d._id);
  const notes = (await server.stack.createDocs([1, 2].map((n) => ({ '~class': 'Note', text: `note ${n}` })))).map((d) => d._id);
  const tags = (await server.stack.createDocs([{ '~class': 'Tag', label: 'red' }])).map((d) => d._id);
  const client = track(await createStack({ name: uniqueName('filtered'), adapter: 'memory', plugins: browser }));
  return { server, client, items, notes, tags };
}

async function ids(stack: BrowserStack): Promise<Set<string>> {
  return new Set((await rawDb(stack).allDocs()).rows.map((r) => r.id));
}

describe('stack.sync with classes (filtered sync)', () => {
  it('pulls exactly the asked classes, their class documents and the extra ids; pushes only the asked classes', async () => {
    const { server, client, items } = await setup();
    const before = await ids(client);
    const handle = client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'], internalDocs: { extraDocIds: ['Tag'] } });
    const denied: unknown[] = [];
    handle.on('denied', (e) => denied.push(e));
    await handle;
    const arrived = [...(await ids(client))].filter((id) => !before.has(id)).sort();
    expect(arrived).toEqual([...items, 'Item', 'Tag'].sort());
    expect(denied).toEqual([]);
    // the Tag class document came (extraDocIds): Tags can be written here now, and a Tag stays home
    const tag = await client.createDoc({ '~class': 'Tag', label: 'local' });
    const item = await client.createDoc({ '~class': 'Item', title: 'from the client', n: 9 });
    const result = (await client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'], internalDocs: { extraDocIds: ['Tag'] } })) as PullResult;
    expect(await server.stack.getDocument(item._id)).toMatchObject({ title: 'from the client' });
    expect(await server.stack.getDocument(tag._id)).toBeNull();
    expect(result.push).toMatchObject({ docs_written: 1 });
  });

  it('widening the classes of a sync transfers only what is missing; the same filter again reads nothing', async () => {
    const { server, client, notes } = await setup();
    const sync = (classes: string[]) => client.sync({ remote: server.url, auth: { token: TOKEN }, classes }) as PromiseLike<PullResult>;
    expect((await sync(['Item'])).pull).toMatchObject({ docs_read: 4, docs_written: 4 }); // 3 Items + the Item class
    expect((await sync(['Item'])).pull).toMatchObject({ docs_read: 0 }); // the checkpoint of this filter
    // a new filter has its own checkpoint (PouchDB names it after the selector): its feed is read
    // from the start, but the Items are known here (revs_diff): only the Notes travel
    const wider = await sync(['Note', 'Item']);
    expect(wider.pull).toMatchObject({ docs_read: notes.length + 1, docs_written: notes.length + 1 });
    // the order of the names does not matter: same scope, same checkpoint
    expect((await sync(['Item', 'Note'])).pull).toMatchObject({ docs_read: 0 });
    expect(await client.getDocument(notes[0])).toMatchObject({ text: 'note 1' });
  });

  it('documents of an ephemeral class never leave: no denied event, not on the node, not counted by the push', async () => {
    const { server, client } = await setup();
    await client.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Item'] });
    await Class.create(client, 'Cursor', 'class', 'where the pointer is', { x: { type: 'integer' } }, { ephemeral: true });
    const cursors = (await client.createDocs([{ '~class': 'Cursor', x: 1 }, { '~class': 'Cursor', x: 2 }])).map((d) => d._id);
    const item = await client.createDoc({ '~class': 'Item', title: 'kept', n: 1 });
    for (const classes of [undefined, ['Item', 'Cursor']]) {
      const handle = client.sync({ remote: server.url, auth: { token: TOKEN }, ...(classes ? { classes } : {}) });
      const denied: string[] = [];
      handle.on('denied', (e: { doc?: { id?: string } }) => denied.push(String(e.doc?.id)));
      await handle;
      expect(denied.filter((id) => id.startsWith('Cursor-'))).toEqual([]);
    }
    for (const id of cursors) expect(await server.stack.storage.get(id)).toBeNull();
    expect(await server.stack.getDocument(item._id)).toMatchObject({ title: 'kept' });
  });

  it('~scope stays on the documents: a client without the scope key receives the ciphertext', async () => {
    const { server } = await setup();
    const writer = track(await createStack({ name: uniqueName('filtered-keys'), adapter: 'memory', plugins: browser }));
    await writer.unlock('correct horse battery staple');
    await Class.create(writer, 'Vault', 'class', '', { label: { type: 'string' }, pin: { type: 'string', encrypted: true } });
    const sealed = await writer.createDoc({ '~class': 'Vault', label: 'visible', pin: '1234', '~scope': 'default' });
    await writer.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Vault'] });
    const reader = track(await createStack({ name: uniqueName('filtered-nokey'), adapter: 'memory', plugins: browser }));
    await reader.sync({ remote: server.url, auth: { token: TOKEN }, classes: ['Vault'] });
    const raw = (await rawDb(reader).get(sealed._id)) as Record<string, unknown>;
    expect(raw).toMatchObject({ label: 'visible', '~scope': 'default', pin: { '~enc': 1, scope: 'default' } });
    expect(JSON.stringify(raw)).not.toContain('1234');
  });

  it('refuses malformed scopes with DS_SYNC_OPTIONS', async () => {
    const { server, client } = await setup();
    const remote = server.url;
    expect(() => client.sync({ remote, classes: [] })).toThrow(expect.objectContaining({ code: 'DS_SYNC_OPTIONS', path: 'classes' }));
    expect(() => client.sync({ remote, classes: ['~User'] })).toThrow(expect.objectContaining({ code: 'DS_SYNC_OPTIONS' }));
    expect(() => client.sync({ remote, classes: 'Item' as never })).toThrow(expect.objectContaining({ code: 'DS_SYNC_OPTIONS' }));
    expect(() => client.sync({ remote, internalDocs: { extraDocIds: ['Tag'] } })).toThrow(expect.objectContaining({ code: 'DS_SYNC_OPTIONS' }));
    expect(() => client.sync({ remote, classes: ['Item'], internalDocs: { extraDocIds: [3] as never } })).toThrow(expect.objectContaining({ code: 'DS_SYNC_OPTIONS' }));
  });
});

describe('the node serves filter=_selector', () => {
  const changes = (server: TestNode, body: unknown, query = 'filter=_selector') =>
    fetch(`${server.url}/_changes?${query}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('pages by matches (limit), resumes after the last one, and reads past a run of other classes', async () => {
    const { server, items, notes } = await setup();
    const first = (await (await changes(server, { selector: { '~class': { $in: ['Note'] } } }, 'filter=_selector&limit=1')).json()) as { results: { id: string; doc?: unknown }[]; last_seq: number };
    expect(first.results).toHaveLength(1);
    expect(first.results[0].doc).toBeUndefined(); // include_docs was not asked for
    const rest = (await (await changes(server, { selector: { '~class': 'Note' } }, `filter=_selector&since=${first.last_seq}`)).json()) as { results: { id: string }[] };
    expect([...first.results, ...rest.results].map((r) => r.id).sort()).toEqual([...notes].sort());
    // any other Mango selector is matched by PouchDB's matcher
    const general = (await (await changes(server, { selector: { n: { $gt: 1 } } }, 'filter=_selector&include_docs=true')).json()) as { results: { id: string }[] };
    expect(general.results.map((r) => r.id).sort()).toEqual(items.slice(1).sort());
  });

  it('answers the first pull of a class from its id range, in pages a cursor resumes, then the feed from the snapshot', async () => {
    const { server, items } = await setup();
    // a conflict on the node: both leaves must travel (style=all_docs)
    const stored = (await server.stack.storage.replication.get(items[0])) as Record<string, unknown>;
    await server.stack.ingest([{ ...stored, _rev: '1-ffff', _revisions: { start: 1, ids: ['ffff'] }, title: 'other side', n: 100 }], { origin: 'replication', newEdits: false });
    const selector = { $or: [{ '~class': { $in: ['Item'] } }, { _id: { $in: ['Item'] } }] };
    const seen: { id: string; changes: { rev: string }[] }[] = [];
    let since: string | number = 0;
    let later = '';
    for (let page = 0; page < 20; page++) {
      const body = (await (await changes(server, { selector }, `filter=_selector&style=all_docs&limit=2&since=${since}`)).json()) as { results: typeof seen; last_seq: string | number };
      if (page === 0) {
        expect(body.results.map((r) => r.id)[0]).toBe('Item'); // the class document first
        expect(String(body.last_seq)).toMatch(/^\d+-r/); // a cursor, not a feed sequence
        later = (await server.stack.createDoc({ '~class': 'Item', title: 'after the snapshot', n: 7 }))._id;
      }
      if (body.results.length === 0) break;
      seen.push(...body.results);
      since = body.last_seq;
    }
    expect(new Set(seen.map((r) => r.id))).toEqual(new Set(['Item', ...items, later]));
    expect(seen.find((r) => r.id === items[0])!.changes).toHaveLength(2);
  });

  it('answers 400 for a design-document filter or a malformed selector', async () => {
    const { server } = await setup();
    for (const [body, query] of [[{}, 'filter=_selector'], [{ selector: 'x' }, 'filter=_selector'], [{}, 'filter=app/mine'], [{ selector: { $or: 3 } }, 'filter=_selector'], [{ selector: { title: { $regex: '(a+)+$' } } }, 'filter=_selector']] as const) {
      const res = await changes(server, body, query);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'DS_REQUEST_INVALID' });
    }
  });
});
