import { describe, expect, it, vi } from 'vitest';
import { Class, createStack } from '../../index.js';
import { decodeNaturalKey, naturalDocId } from '../../kernel/drafts.js';
import { browser } from '../../plugins.config.js';
import { keyIdOf } from '../../engine/indexes/primary-keys.js';
import { kernelStack, rawDb, refusal, track, uniqueName } from '../helpers/stack.js';

const personClass = (stack: Parameters<typeof Class.create>[0]) =>
  Class.create(stack, 'Person', 'class', 'a person', {
    country: { type: 'string', primaryKey: true },
    nationalId: { type: 'string', primaryKey: true },
    name: { type: 'string' },
  });

describe('natural ids: a keyed document is named by its key', () => {
  it('encodes a key reversibly, whatever the string, and never with a leading underscore', () => {
    for (const values of [['FR', '7'], ['a,b', 'c/d%e"f'], ['a.b_c', '_22'], ['', ' '], [12, true], ['_x', 'é🙂'], [{ b: 1, a: [2, null] }]]) {
      const id = naturalDocId('Person', values);
      expect(id.startsWith('Person-')).toBe(true);
      expect(id).toMatch(/^[A-Za-z0-9\-_.]+$/); // nothing a URL path must escape
      expect(decodeNaturalKey('Person', id)).toEqual(values);
    }
    // distinct keys, distinct ids: a string is not the number it spells, and parts do not run together
    expect(naturalDocId('P', ['1'])).not.toBe(naturalDocId('P', [1]));
    expect(naturalDocId('P', ['a.b'])).not.toBe(naturalDocId('P', ['a', 'b']));
    // canonical: the key order of an object value does not change the id
    expect(naturalDocId('P', [{ a: 1, b: 2 }])).toBe(naturalDocId('P', [{ b: 2, a: 1 }]));
    expect(decodeNaturalKey('Person', 'Person-0b6c1e4f-random')).toBeNull();
  });

  it('derives the id from the key on create; an explicit _id wins; a class without a key keeps random ids', async () => {
    const stack = await kernelStack();
    await personClass(stack);
    await Class.create(stack, 'Note', 'class', 'a note', { text: { type: 'string' } });
    const ada = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'Ada' });
    expect(ada._id).toBe(naturalDocId('Person', ['FR', '7']));
    expect(ada._id).toBe('Person-_22FR_22._227_22');
    const chosen = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '8' }, { id: 'Person-mine' });
    expect(chosen._id).toBe('Person-mine');
    const note = await stack.createDoc({ '~class': 'Note', text: 'x' });
    expect(note._id).toMatch(/^Note-[0-9a-f-]{36}$/);
  });

  it('refuses a key that exists here (DS_UNIQUE_VIOLATION), also when its holder has a random id from an older store', async () => {
    const stack = await kernelStack();
    await personClass(stack);
    const ada = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'Ada' });
    const again = await refusal(stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'Eve' }));
    expect(again).toMatchObject({ code: 'DS_UNIQUE_VIOLATION', details: { existingId: ada._id } });
    // an older store's document: a random id, its key claimed as before
    const old = await stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1' }, { id: 'Person-0b6c1e4f' });
    expect((await refusal(stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1' }))).code).toBe('DS_UNIQUE_VIOLATION');
    expect(await stack.getDocument(old._id)).toMatchObject({ country: 'DE' });
    expect((await stack.getDocument(ada._id))?.name).toBe('Ada');
  });

  it('keeps key attributes immutable (DS_PRIMARY_KEY_IMMUTABLE); other attributes change as before', async () => {
    const stack = await kernelStack();
    await personClass(stack);
    const ada = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'Ada' });
    expect((await refusal(stack.updateDoc(ada._id, { nationalId: '8' }))).code).toBe('DS_PRIMARY_KEY_IMMUTABLE');
    expect((await refusal(stack.updateDoc(ada._id, { country: null }))).code).toBe('DS_PRIMARY_KEY_IMMUTABLE');
    const renamed = await stack.updateDoc(ada._id, { name: 'Ada L.', country: 'FR' });
    expect(renamed).toMatchObject({ name: 'Ada L.', country: 'FR', nationalId: '7' });
  });

  it('revives a soft-deleted document when its key is created again', async () => {
    const stack = await kernelStack();
    const people = await personClass(stack);
    const ada = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'Ada' });
    await stack.deleteDocument(ada._id);
    expect(await people.count()).toBe(0);
    const back = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7' });
    expect(back._id).toBe(ada._id);
    expect(back._rev).toMatch(/^3-/);
    expect(back.active).toBe(true);
    expect(back.name).toBeUndefined(); // a new document under the old id, not the old body
    expect(await people.count()).toBe(1);
    // the key is held again
    expect((await refusal(stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7' }))).code).toBe('DS_UNIQUE_VIOLATION');
  });

  it('getByPrimaryKeys reads the natural id first, without the key index', async () => {
    const stack = await kernelStack();
    const people = await personClass(stack);
    const ada = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'Ada' });
    // the document is its key's claim: no key entry is stored for it, and the hint is forgotten
    const keyId = keyIdOf('Person', ['FR', '7']);
    const raw = rawDb(stack);
    expect(await raw.get(keyId).catch((err: { status?: number }) => err.status)).toBe(404);
    stack.primaryKeys.remember(keyId, null);
    const lookup = vi.spyOn(stack.primaryKeys, 'lookup');
    expect(await people.getByPrimaryKeys({ country: 'FR', nationalId: '7' })).toMatchObject({ _id: ada._id, name: 'Ada' });
    expect(lookup).not.toHaveBeenCalled();
    // a soft-deleted document under the natural id holds no key
    await stack.deleteDocument(ada._id);
    expect(await people.getByPrimaryKeys({ country: 'FR', nationalId: '7' })).toBeNull();
  });

  it('getByPrimaryKeys falls back to the key index for a document with another id (an older store)', async () => {
    const stack = await kernelStack();
    const people = await personClass(stack);
    const old = await stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1', name: 'Old' }, { id: 'Person-0b6c1e4f' });
    stack.primaryKeys.remember(keyIdOf('Person', ['DE', '1']), null);
    const lookup = vi.spyOn(stack.primaryKeys, 'lookup');
    expect(await people.getByPrimaryKeys({ country: 'DE', nationalId: '1' })).toMatchObject({ _id: old._id, name: 'Old' });
    expect(lookup).toHaveBeenCalledTimes(1);
    // a key nobody holds: neither the natural id nor the index answers
    expect(await people.getByPrimaryKeys({ country: 'DE', nationalId: '2' })).toBeNull();
    // addOrUpdateCard finds the older document too and updates it, not a second one
    const updated = await people.addOrUpdateCard({ country: 'DE', nationalId: '1', name: 'Updated' });
    expect(updated._id).toBe(old._id);
    expect(await people.count()).toBe(1);
  });

  it('two devices creating one key offline make two revisions of one document', async () => {
    const open = () => createStack({ name: uniqueName('natural'), adapter: 'memory', plugins: browser }).then(track);
    const [a, b] = [await open(), await open()];
    for (const stack of [a, b]) await personClass(stack);
    const mine = await a.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'from a' });
    const theirs = await b.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'from b' });
    expect(theirs._id).toBe(mine._id);
    const [result] = await a.ingest([await b.storage.replication.get(theirs._id, { revs: true })]);
    expect(result).toMatchObject({ ok: true });
    const stored = (await a.storage.replication.get(mine._id, { conflicts: true })) as { _rev: string; _conflicts?: string[] };
    expect([stored._rev, ...(stored._conflicts ?? [])].sort()).toEqual([mine._rev, theirs._rev].sort());
  });
});
