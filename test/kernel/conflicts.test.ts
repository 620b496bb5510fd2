/**
 * Conflicts made visible and resolvable (issue #28, the API part): two devices edit one document
 * offline; after replication `stack.conflicts()` lists it on both with the winning and losing
 * bodies; `stack.resolveConflict` writes one validated revision and removes the losing leaves;
 * resolving again is DS_CONFLICT_NONE; replicated back, the other device holds the resolution only.
 */
import { describe, expect, it } from 'vitest';
import { Class, type ClientStack, type ConflictResolvedEvent, type Doc } from '../../index.js';
import { expectRefused, memoryStack } from '../helpers/stack.js';
import { replicateIngest as replicate } from '../helpers/replicate.js';


/** Two devices holding one Note; each edits it offline, then they replicate both ways. */
async function twoDevices(editA: (a: ClientStack, id: string) => Promise<unknown>, editB: (b: ClientStack, id: string) => Promise<unknown>) {
  const a = await memoryStack();
  const b = await memoryStack();
  await Class.create(a, 'Note', 'class', '', { title: { type: 'string', mandatory: true }, body: { type: 'string' }, stars: { type: 'integer' } });
  await Class.create(a, 'Other', 'class', '', { n: { type: 'integer' } });
  const note = await a.createDoc({ '~class': 'Note', title: 'first', body: 'text' });
  await a.createDoc({ '~class': 'Other', n: 1 });
  await replicate(a, b);
  await editA(a, note._id);
  await editB(b, note._id);
  await replicate(a, b);
  await replicate(b, a);
  return { a, b, id: note._id };
}

const editEdit = () =>
  twoDevices(
    (a, id) => a.updateDoc(id, { title: 'from a', stars: 3 }),
    (b, id) => b.updateDoc(id, { body: 'from b' }),
  );

const attrs = (doc: Doc) => ({ title: doc.title, body: doc.body, stars: doc.stars, active: doc.active });

describe('stack.conflicts', () => {
  it('lists a document edited on two devices on both, with winner and loser bodies', async () => {
    const { a, b, id } = await editEdit();
    const fromA = { title: 'from a', body: 'text', stars: 3, active: true };
    const fromB = { title: 'first', body: 'from b', stars: undefined, active: true };
    for (const stack of [a, b]) {
      const listed = await stack.conflicts();
      expect(listed.map((c) => [c.id, c.className])).toEqual([[id, 'Note']]);
      const [{ winner, losers }] = listed;
      expect(losers).toHaveLength(1);
      expect([attrs(winner), attrs(losers[0])]).toEqual(expect.arrayContaining([fromA, fromB]));
      expect(attrs(winner)).toEqual(attrs((await stack.getDocument(id))!)); // the winner is what reads answer
      expect(await stack.conflicts('Note')).toHaveLength(1);
      expect(await stack.conflicts('Other')).toEqual([]);
    }
    // both devices pick the same winner (PouchDB's deterministic choice)
    expect((await a.conflicts())[0].winner._rev).toBe((await b.conflicts())[0].winner._rev);
  });

  it('lists nothing without conflicts, and refuses an unknown class', async () => {
    const a = await memoryStack();
    await Class.create(a, 'Note', 'class', '', { title: { type: 'string' } });
    await a.createDoc({ '~class': 'Note', title: 'x' });
    expect(await a.conflicts()).toEqual([]);
    await expectRefused(a.conflicts('Nope'), 'DS_CLASS_NOT_FOUND');
  });
});

describe('stack.resolveConflict', () => {
  it('writes the merged body as one revision, leaves one leaf, tells conflict:resolved; the other device converges', async () => {
    const { a, b, id } = await editEdit();
    const events: ConflictResolvedEvent[] = [];
    a.on('conflict:resolved', (e: ConflictResolvedEvent) => events.push(e));
    const [{ winner }] = await a.conflicts();
    const merged = await a.resolveConflict(id, { ...winner, title: 'from a', body: 'from b', stars: 3 });
    expect(attrs(merged)).toEqual({ title: 'from a', body: 'from b', stars: 3, active: true });
    expect(events).toEqual([{ id, className: 'Note', policy: 'manual', rev: merged._rev, removed: [expect.stringMatching(/^2-/)] }]);
    expect(await a.conflicts()).toEqual([]);
    const stored = await a.storage.replication.get(id, { conflicts: true });
    expect(stored._conflicts).toBeUndefined();
    expect(stored._rev).toBe(merged._rev);
    expect(attrs((await a.getDocument(id))!)).toEqual(attrs(merged));

    // idempotent: nothing left to resolve, no new revision, no event
    await expectRefused(a.resolveConflict(id, { title: 'again' }), 'DS_CONFLICT_NONE');
    expect((await a.getDocument(id))!._rev).toBe(merged._rev);
    expect(events).toHaveLength(1);

    await replicate(a, b);
    expect(await b.conflicts()).toEqual([]);
    expect(attrs((await b.getDocument(id))!)).toEqual(attrs(merged));
    await expectRefused(b.resolveConflict(id, { title: 'late' }), 'DS_CONFLICT_NONE');
  });

  it('two concurrent resolutions of one document: one is stored, the other is DS_CONFLICT_NONE', async () => {
    const { a, id } = await editEdit();
    const [first, second] = await Promise.allSettled([a.resolveConflict(id, { title: 'one' }), a.resolveConflict(id, { title: 'two' })]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'DS_CONFLICT_NONE' } });
    expect((await a.getDocument(id))?.title).toBe('one');
    expect(await a.conflicts()).toEqual([]);
  });

  it("takes exactly the body's attributes: one left out is cleared", async () => {
    const { a, id } = await editEdit();
    const resolved = await a.resolveConflict(id, { title: 'only a title' });
    expect(attrs(resolved)).toEqual({ title: 'only a title', body: undefined, stars: undefined, active: true });
    expect(attrs((await a.getDocument(id))!)).toEqual(attrs(resolved));
  });

  it('refuses an invalid body and writes nothing: the conflict stays listed', async () => {
    const { a, id } = await editEdit();
    const before = await a.conflicts();
    await expectRefused(a.resolveConflict(id, { title: 'ok', stars: 'many' }), 'DS_VALIDATION_TYPE');
    await expectRefused(a.resolveConflict(id, { body: 'no title' }), 'DS_VALIDATION_MANDATORY');
    await expectRefused(a.resolveConflict(id, { '~class': 'Other', title: 'x' }), 'DS_DOC_PROTECTED_FIELD');
    expect(await a.conflicts()).toEqual(before);
  });

  it('refuses an unknown id and a document never in conflict', async () => {
    const { a } = await editEdit();
    await expectRefused(a.resolveConflict('Note-missing', { title: 'x' }), 'DS_DOC_NOT_FOUND');
    const [other] = await a.findDocuments('Other');
    await expectRefused(a.resolveConflict(other._id, { n: 2 }), 'DS_CONFLICT_NONE');
    await expectRefused(a.resolveConflict(other._id, 'not an object' as never), 'DS_DOC_INVALID');
  });

  it('resolves an edit/delete conflict either way: the body says whether the document lives', async () => {
    const { a, b, id } = await twoDevices(
      (a, id) => a.updateDoc(id, { title: 'edited' }),
      (b, id) => b.deleteDocument(id),
    );
    const [conflict] = await b.conflicts();
    expect([conflict.winner.active, conflict.losers[0].active].sort()).toEqual([false, true]);
    const edited = [conflict.winner, ...conflict.losers].find((d) => d.active !== false)!;
    // keep the edit: the document lives on with it
    const kept = await b.resolveConflict(id, edited);
    expect(attrs(kept)).toMatchObject({ title: 'edited', active: true });
    expect(await b.getDocument(id)).toMatchObject({ title: 'edited', active: true });
    expect(await b.conflicts()).toEqual([]);
    expect(await b.countDocuments('Note')).toBe(1); // the class counter follows the winner's state
    // the other device deletes instead: its resolution is a soft delete
    await a.resolveConflict(id, { title: 'edited', active: false });
    expect(await a.getDocument(id)).toBeNull();
    expect(await a.countDocuments('Note')).toBe(0);
    expect(await a.conflicts()).toEqual([]);
  });
});
