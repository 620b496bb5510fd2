import { describe, expect, it } from 'vitest';
import { createStack } from '../../index.js';
import { server } from '../../plugins.config.js';
import { KeyringOwners } from '../../server/authorization/keyring-owners.js';
import { tempDir, uniqueName } from '../helpers/stack.js';

describe("the node's record of keyring owners", () => {
  it('keeps the first claimant (concurrent claims included) and survives a restart', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('owners');
    const stack = await createStack({ name, adapter: 'leveldb', dataDir, plugins: server });
    const owners = await KeyringOwners.of(stack);
    expect(owners.ownerOf('~Keyring-a')).toBeUndefined();
    expect(await owners.claim('~Keyring-a', '~User-ann')).toBe('~User-ann');
    expect(await owners.claim('~Keyring-a', '~User-bob')).toBe('~User-ann');
    // two pushes of one new keyring at once: one owner, the first
    const both = await Promise.all([owners.claim('~Keyring-b', '~User-bob'), owners.claim('~Keyring-b', '~User-ann')]);
    expect(both).toEqual(['~User-bob', '~User-bob']);
    // never in the changes feed: a `_local` document does not replicate
    expect((await stack.storage.changes({ since: 0 })).results.map((c) => c.id).filter((id) => id.includes('owners'))).toEqual([]);
    await stack.close();

    const reopened = await createStack({ name, adapter: 'leveldb', dataDir, plugins: server });
    try {
      const again = await KeyringOwners.of(reopened);
      expect([again.ownerOf('~Keyring-a'), again.ownerOf('~Keyring-b'), again.ownerOf('~Keyring-c')]).toEqual(['~User-ann', '~User-bob', undefined]);
    } finally {
      await reopened.close();
    }
  });
});
