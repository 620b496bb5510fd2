import { describe, expect, it } from 'vitest';
import { Class, createStack, definePlugin, type DocChangeEvent, type WriteContext } from '../../index.js';
import { browser } from '../../plugins.config.js';
import { testAdapter, track, uniqueName } from '../helpers/stack.js';

declare module '../../index.js' {
  interface WriteSession {
    user?: string;
  }
}

/** A peer: another stack whose documents (with their revisions) are handed to ingest. */
async function pair() {
  const seen: { origin: string; id: string }[] = [];
  const recorder = definePlugin({
    name: 'recorder',
    setup({ hooks }) {
      hooks.afterWrite.tapPromise('recorder', async ([doc], ctx: WriteContext) => void seen.push({ origin: ctx.origin, id: doc._id }));
    },
  });
  const open = (plugins: readonly unknown[]) => createStack({ name: uniqueName('ingest'), adapter: testAdapter, plugins: plugins as typeof browser }).then(track);
  const peer = await open(browser);
  const here = await open([...browser, recorder]);
  for (const stack of [peer, here]) {
    await Class.create(stack, 'Tag', 'class', 'a tag', { label: { type: 'string', primaryKey: true, maxLength: 8 } });
  }
  const events: DocChangeEvent[] = [];
  here.on('change', (e: DocChangeEvent) => events.push(e));
  /** the peer's stored revision of a document, as replication would carry it */
  const revision = (id: string) => peer.storage.replication.get(id, { revs: true });
  return { peer, here, seen, events, revision };
}

describe('stack.ingest: the one path for documents made by a peer', () => {
  it('stores the peer revision as it is, then announces it once: change event and afterWrite with origin replication', async () => {
    const { peer, here, seen, events, revision } = await pair();
    const made = await peer.createDoc({ '~class': 'Tag', label: 'red' });
    const [result] = await here.ingest([await revision(made._id)]);
    expect(result).toEqual({ id: made._id, ok: true, rev: made._rev });
    expect((await here.storage.get(made._id))?._rev).toBe(made._rev);
    expect(events.filter((e) => e.id === made._id)).toEqual([expect.objectContaining({ op: 'create', origin: 'replication', className: 'Tag', rev: made._rev })]);
    expect(seen.filter((s) => s.id === made._id)).toEqual([{ origin: 'replication', id: made._id }]);
    // the primary key was claimed: a local write of the same label is refused
    await expect(here.createDoc({ '~class': 'Tag', label: 'red' })).rejects.toMatchObject({ code: 'DS_UNIQUE_VIOLATION' });
  });

  it('refuses an invalid document alone (validated as a replication write) and stores the rest of the batch', async () => {
    const { peer, here, events, revision } = await pair();
    const good = await peer.createDoc({ '~class': 'Tag', label: 'ok' });
    const bad = { ...(await revision(good._id)), _id: 'Tag-forged', label: 'far too long', _rev: '1-abc', _revisions: { start: 1, ids: ['abc'] } };
    const results = await here.ingest([bad, await revision(good._id)]);
    expect(results[0]).toMatchObject({ id: 'Tag-forged', ok: false, code: 'DS_VALIDATION_MAX_LENGTH' });
    expect(results[1]).toMatchObject({ id: good._id, ok: true });
    expect(await here.storage.get('Tag-forged')).toBeNull();
    expect(events.map((e) => e.id)).toEqual([good._id]);
  });

  it('refuses what has no class here, a class-less document and a system id, each with its code', async () => {
    const { here } = await pair();
    const results = await here.ingest([
      { _id: 'Ghost-1', _rev: '1-a', '~class': 'Ghost' },
      { _id: 'Tag-2', _rev: '1-b', label: 'x' },
      { _id: 'other3', _rev: '1-c', '~class': 'Tag', label: 'y' },
      'not a document',
    ], { hold: false }); // held otherwise: test/kernel/ingest-held.test.ts
    expect(results.map((r) => !r.ok && r.code)).toEqual(['DS_CLASS_NOT_FOUND', 'DS_CLASS_MISSING', 'DS_DOC_ID_RESERVED', 'DS_DOC_INVALID']);
  });

  it('keeps keys unique: refuses a peer document whose key another live document owns here, or reports it', async () => {
    const { peer, here, revision } = await pair();
    await here.createDoc({ '~class': 'Tag', label: 'blue' });
    // a peer that names its documents itself (an older store, another SPEC peer): same key, another id
    // (the same key created under its natural id on both sides is one document: test/kernel/natural-ids.test.ts)
    const theirs = await peer.createDoc({ '~class': 'Tag', label: 'blue' }, { id: 'Tag-from-peer' });
    const [refused] = await here.ingest([await revision(theirs._id)]);
    expect(refused).toMatchObject({ ok: false, code: 'DS_UNIQUE_VIOLATION', status: 409 });

    const conflicts: unknown[] = [];
    here.on('index:conflict', (c) => conflicts.push(c));
    const [reported] = await here.ingest([await revision(theirs._id)], { keyConflicts: 'report' });
    expect(reported).toMatchObject({ ok: true });
    expect(conflicts).toEqual([expect.objectContaining({ id: theirs._id, className: 'Tag' })]);
  });

  it('two documents of one batch with one key: the first is stored, the second refused', async () => {
    const { peer, here, revision } = await pair();
    const a = await peer.createDoc({ '~class': 'Tag', label: 'other' }); // re-keyed to 'same' below, as an older peer could
    const b = await peer.createDoc({ '~class': 'Tag', label: 'same' });
    const first = { ...(await revision(a._id)), label: 'same', _rev: '9-aaa', _revisions: { start: 9, ids: ['aaa'] } };
    const results = await here.ingest([first, await revision(b._id)]);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(results[1]).toMatchObject({ code: 'DS_UNIQUE_VIOLATION' });
  });

  it('stores a class document before the documents of the same batch, and checks it as Class.create would', async () => {
    const { peer, here, revision } = await pair();
    await Class.create(peer, 'Note', 'class', 'notes', { text: { type: 'string', mandatory: true } });
    const note = await peer.createDoc({ '~class': 'Note', text: 'hello' });
    const results = await here.ingest([await revision(note._id), await revision('Note')]);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect((await here.getDocument(note._id))?.text).toBe('hello');

    const [broken] = await here.ingest([{ _id: 'Broken', _rev: '1-x', '~class': 'class', name: 'Broken', schema: { a: { type: 42, name: 'a' } } }]);
    expect(broken).toMatchObject({ ok: false, code: 'DS_ATTRIBUTE_TYPE_UNKNOWN' });
    // a type no plugin here defines may be a peer plugin's: kept, and the class read-only here
    const [foreign] = await here.ingest([{ _id: 'Foreign', _rev: '1-x', '~class': 'class', name: 'Foreign', schema: { a: { type: 'geo_point', name: 'a' } } }]);
    expect(foreign).toMatchObject({ ok: true });
    await expect(here.createDoc({ '~class': 'Foreign' })).rejects.toMatchObject({ code: 'DS_CAPABILITY_MISSING', details: { capability: 'geo_point' } });
  });

  it('an admit tap refuses one document; a tap that takes charge of a class-less document has it stored as it came', async () => {
    const gate = definePlugin({
      name: 'gate',
      setup({ hooks }) {
        hooks.admit.tapPromise('gate', async (item, ctx) => {
          if (item.doc._id === 'Tag-blocked') throw new Error(`blocked for ${String((ctx.session as { user?: string }).user)}`);
          if (item.doc._id.startsWith('~audit-')) item.handled = true;
        });
      },
    });
    const stack = await createStack({ name: uniqueName('ingest'), adapter: testAdapter, plugins: [...browser, gate] }).then(track);
    await Class.create(stack, 'Tag', 'class', '', { label: { type: 'string' } });
    const results = await stack.ingest(
      [
        { _id: 'Tag-blocked', _rev: '1-a', '~class': 'Tag', label: 'x' },
        { _id: '~audit-1', _rev: '1-b', what: 'anything' },
      ],
      { session: { user: 'ann' } },
    );
    expect(results[0]).toMatchObject({ ok: false, reason: 'blocked for ann' });
    expect(results[1]).toMatchObject({ ok: true, rev: '1-b' });
    expect(await stack.storage.get('~audit-1')).toMatchObject({ what: 'anything' });
  });

  it('a tombstone (a purge on the peer) is stored and gives the key back', async () => {
    const { peer, here, revision } = await pair();
    const made = await peer.createDoc({ '~class': 'Tag', label: 'gone' });
    await here.ingest([await revision(made._id)]);
    await peer.purgeDocuments([made._id]);
    const [tombstone] = await peer.storage.replication.openRevs(made._id, 'all', { revs: true });
    const [result] = await here.ingest(['ok' in tombstone ? tombstone.ok : tombstone]);
    expect(result).toMatchObject({ ok: true });
    expect(await here.createDoc({ '~class': 'Tag', label: 'gone' })).toMatchObject({ label: 'gone' });
  });
});
