/**
 * A peer's document written against a schema this replica has not received yet (its class, or
 * one of its attributes) is kept aside and ingested again when the schema arrives — not refused
 * and lost behind the replicator's checkpoint.
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class } from '../../../index.js';
import { memoryStack, rawDb } from '../../helpers/stack.js';

const revs = { revs: true } as const;

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('documents ahead of this replica\'s schema', () => {
  it('are held (reported stored, not visible), then stored once their class and attribute arrive', async () => {
    const author = await memoryStack();
    const cls = await Class.create(author, 'Note', 'class', '', { title: { type: 'string' } });
    const first = await author.createDoc({ '~class': 'Note', title: 'one' });
    await Attribute.create(cls, 'tag', 'string', '');
    const tagged = await author.createDoc({ '~class': 'Note', title: 'two', tag: 'x' });

    const replica = await memoryStack();
    const held: string[] = [];
    replica.on('ingest:held', (e: { id: string }) => held.push(e.id));
    // the documents come before the class document (it changed after they were written)
    const results = await replica.ingest([await rawDb(author).get(first._id, revs), await rawDb(author).get(tagged._id, revs)]);
    expect(results).toEqual([expect.objectContaining({ ok: true, id: first._id }), expect.objectContaining({ ok: true, id: tagged._id })]);
    expect(held).toEqual([first._id, tagged._id]);
    expect(await replica.getDocument(first._id)).toBeNull();
    expect((await replica.heldDocuments()).map((h: { id: string }) => h.id).sort()).toEqual([first._id, tagged._id].sort());

    await replica.ingest([await rawDb(author).get('Note', revs)]);
    await until(async () => (await replica.getDocument(tagged._id)) !== null);
    expect(await replica.getDocument(first._id)).toMatchObject({ title: 'one' });
    expect(await replica.getDocument(tagged._id)).toMatchObject({ title: 'two', tag: 'x' });
    expect(await replica.heldDocuments()).toEqual([]);
  });

  it('other refusals are never held; a document still ahead stays held; one refused once its class is here is dropped with an event', async () => {
    const author = await memoryStack();
    await Class.create(author, 'Note', 'class', '', { title: { type: 'string' } });
    const replica = await memoryStack();
    await replica.ingest([await rawDb(author).get('Note', revs)]);
    const now = new Date().toISOString();
    const wrongType = { _id: 'Note-bad', _rev: '1-a', '~class': 'Note', '~createTimestamp': now, active: true, title: 42 };
    expect((await replica.ingest([wrongType]))[0]).toMatchObject({ ok: false, code: 'DS_VALIDATION_TYPE' });

    const ahead = { _id: 'Note-ahead', _rev: '1-b', '~class': 'Note', '~createTimestamp': now, active: true, title: 't', colour: 'red' };
    expect((await replica.ingest([ahead]))[0]).toMatchObject({ ok: true });
    const dropped: { id: string; code: string }[] = [];
    replica.on('ingest:refused', (e: { id: string; code: string }) => dropped.push(e));
    // a class change arrives that still has no `colour`: the held document is tried and held again
    await Class.create(replica, 'Other', 'class', '', {});
    await until(async () => (await replica.heldDocuments()).length === 1);
    expect(await replica.getDocument('Note-ahead')).toBeNull();
    expect(dropped).toEqual([]);

    // its class arrives, and the held document breaks it: dropped, with the refusal's code
    const late = { _id: 'Late-1', _rev: '1-c', '~class': 'Late', '~createTimestamp': now, active: true, title: 42 };
    expect((await replica.ingest([late]))[0]).toMatchObject({ ok: true });
    await Class.create(author, 'Late', 'class', '', { title: { type: 'string' } });
    await replica.ingest([await rawDb(author).get('Late', revs)]);
    await until(async () => dropped.length === 1);
    expect(dropped[0]).toMatchObject({ id: 'Late-1', code: 'DS_VALIDATION_TYPE' });
    expect((await replica.heldDocuments()).map((h: { id: string }) => h.id)).toEqual(['Note-ahead']);
  });
});
