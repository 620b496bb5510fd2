import { describe, expect, it } from 'vitest';
import { Class } from '../../../index.js';
import { memoryStack, track } from '../../helpers/stack.js';
import { PASSPHRASE } from './setup.js';

describe('a keyring made before keyrings travelled', () => {
  it('is copied under a random id on unlock (the legacy one never leaves its store), and every value still opens', async () => {
    const stack = track(await memoryStack());
    await stack.unlock(PASSPHRASE);
    await Class.create(stack, 'Note', 'class', '', { text: { type: 'string', encrypted: true } });
    await stack.keyring.createScope('team');
    const note = await stack.createDoc({ '~class': 'Note', text: 'kept', '~scope': 'team' });
    const made = stack.keyring.id!;
    // the store as the old plugin left it: the same keyring, under ~Keyring-main only
    const { _rev: _r, ...stored } = (await stack.storage.get<Record<string, unknown>>(made))!;
    stack.lock();
    await stack.storage.put({ ...stored, _id: '~Keyring-main' });
    await stack.purgeDocuments([made]);
    expect((await stack.storage.range({ prefix: '~Keyring-' })).map((r) => r.id)).toEqual(['~Keyring-main']);

    await stack.unlock(PASSPHRASE);
    const copy = stack.keyring.id!;
    expect(copy).toMatch(/^~Keyring-/);
    expect([made, '~Keyring-main']).not.toContain(copy);
    expect((await stack.getDocument(note._id))?.text).toBe('kept');
    expect(await stack.keyring.scopes()).toEqual(['default', 'team']);
    // the copy records that it holds the legacy keyring: the next unlock makes nothing new
    stack.lock();
    await stack.unlock(PASSPHRASE);
    expect(stack.keyring.id).toBe(copy);
    expect(await stack.storage.range({ prefix: '~Keyring-' })).toHaveLength(2);
    expect((await stack.getDocument(note._id))?.text).toBe('kept');
  });
});
