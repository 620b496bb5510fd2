import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../index.js';
import { keyIdOf } from '../../engine/indexes/primary-keys.js';
import { holderCountIdOf } from '../../engine/indexes/key-holders.js';
import { kernelStack, rawDb, refusal, track, uniqueName } from '../helpers/stack.js';

const personClass = (stack: Parameters<typeof Class.create>[0]) =>
  Class.create(stack, 'Person', 'class', 'a person', {
    country: { type: 'string', primaryKey: true },
    nationalId: { type: 'string', primaryKey: true },
    name: { type: 'string' },
  });

/** What the store holds under an id (`_local` included), or the status it answers. */
const stored = (stack: Parameters<typeof rawDb>[0], id: string) => rawDb(stack).get(id).catch((err: { status?: number }) => err.status);

describe('natural-id documents are their own key claim', () => {
  it('stores no key entry for a natural-id create, and refuses a second create of it (DS_UNIQUE_VIOLATION)', async () => {
    const stack = await kernelStack();
    const people = await personClass(stack);
    const [ada, bob] = await stack.createDocs([
      { '~class': 'Person', country: 'FR', nationalId: '1', name: 'Ada' },
      { '~class': 'Person', country: 'FR', nationalId: '2', name: 'Bob' },
    ]);
    await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '3' });
    for (const n of ['1', '2', '3']) expect(await stored(stack, keyIdOf('Person', ['FR', n]))).toBe(404);
    expect(await stored(stack, holderCountIdOf('Person'))).toMatchObject({ count: 0 });
    const err = await refusal(stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1', name: 'Eve' }));
    expect(err.code).toBe('DS_UNIQUE_VIOLATION');
    expect(err.details?.existingId).toBe(ada._id);
    // a batch with one taken key stores none of it
    expect((await refusal(stack.createDocs([{ '~class': 'Person', country: 'DE', nationalId: '9' }, { '~class': 'Person', country: 'FR', nationalId: '2' }]))).code).toBe('DS_UNIQUE_VIOLATION');
    expect(await stack.getDocument('Person-_22DE_22._229_22')).toBeNull();
    expect(await stack.countDocuments('Person')).toBe(3);
    // every reader still answers
    expect((await people.getByPrimaryKeys({ country: 'FR', nationalId: '2' }))?._id).toBe(bob._id);
    expect(await stack.countDocuments('Person', { country: 'FR', nationalId: '2' })).toBe(1);
    expect((await refusal(people.uniqueCheck({ country: 'FR', nationalId: '2' }))).code).toBe('DS_UNIQUE_VIOLATION');
    await expect(people.uniqueCheck({ country: 'FR', nationalId: '4' })).resolves.toBe(true);
    expect(await stack.primaryKeys.lookup('Person', ['FR', '2'])).toBe(bob._id);
  });

  it('keeps an entry for a holder under another id, counted, so a natural-id create of its key is refused', async () => {
    const stack = await kernelStack();
    const people = await personClass(stack);
    const old = await stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1' }, { id: 'Person-0b6c1e4f' });
    expect(await stored(stack, keyIdOf('Person', ['DE', '1']))).toMatchObject({ docId: old._id });
    expect(await stored(stack, holderCountIdOf('Person'))).toMatchObject({ count: 1 });
    expect((await refusal(stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1' }))).details?.existingId).toBe(old._id);
    // and a create under another id is refused by a natural-id holder (which has no entry)
    const natural = await stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '2' });
    expect((await refusal(stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '2' }, { id: 'Person-explicit' }))).details?.existingId).toBe(natural._id);
    // the holder leaves its key: its entry goes, the count follows, the natural id takes the key
    await stack.deleteDocument(old._id);
    expect(await stored(stack, keyIdOf('Person', ['DE', '1']))).toBe(404);
    expect(await stored(stack, holderCountIdOf('Person'))).toMatchObject({ count: 0 });
    const now = await stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1' });
    expect((await people.getByPrimaryKeys({ country: 'DE', nationalId: '1' }))?._id).toBe(now._id);
  });

  it('revives a soft-deleted natural id (refused by storage first, then stored as its next revision)', async () => {
    const stack = await kernelStack();
    await personClass(stack);
    const first = await stack.createDoc({ '~class': 'Person', country: 'IT', nationalId: '5', name: 'first' });
    await stack.deleteDocument(first._id);
    const again = await stack.createDoc({ '~class': 'Person', country: 'IT', nationalId: '5', name: 'again' });
    expect(again._id).toBe(first._id);
    expect(Number(again._rev!.split('-')[0])).toBeGreaterThan(2);
    expect(await stack.countDocuments('Person')).toBe(1);
    expect(await stored(stack, keyIdOf('Person', ['IT', '5']))).toBe(404);
  });

  it('an older store (key entries for natural ids, no holder count) keeps working: entries read, then removed with their key', async () => {
    const name = uniqueName('older-pk');
    const stack = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    await personClass(stack);
    const doc = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1' });
    const db = rawDb(stack);
    // what an older version stored: an entry for the natural-id document, and no count
    await db.put({ _id: keyIdOf('Person', ['FR', '1']), docId: doc._id, claimedAt: 0 } as never);
    await db.remove((await db.get(holderCountIdOf('Person'))) as never);
    await stack.close();
    const reopened = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    expect((await refusal(reopened.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1' }))).code).toBe('DS_UNIQUE_VIOLATION');
    const people = await Class.fetch(reopened, 'Person');
    expect((await people.getByPrimaryKeys({ country: 'FR', nationalId: '1' }))?._id).toBe(doc._id);
    await reopened.deleteDocument(doc._id);
    expect(await stored(reopened, keyIdOf('Person', ['FR', '1']))).toBe(404);
  });
});
