import { describe, expect, it } from 'vitest';
import { expectRefused, memoryStack } from '../../helpers/stack.js';
import { PASSPHRASE, secretClasses } from './setup.js';

async function unlocked() {
  const stack = await memoryStack();
  await stack.unlock(PASSPHRASE);
  await secretClasses(stack);
  const person = await stack.createDoc({ '~class': 'Person', name: 'ann' });
  const values = {
    label: 'visible',
    pin: '12-34',
    count: 7,
    amount: 12.5,
    flag: false,
    born: '1990-02-28',
    level: 'high',
    extra: { nested: ['a', 1, null] },
    owner: person._id,
    tags: ['x', 'y'],
    scores: [3, 1, 2],
  };
  return { stack, person, values };
}

describe('encrypted attributes', () => {
  it('round-trip every type, arrays included, and are stored as AES-GCM payloads only', async () => {
    const { stack, values } = await unlocked();
    const created = await stack.createDoc({ '~class': 'Secret', ...values });
    expect(created).toMatchObject(values); // the caller gets plaintext back
    const raw = (await stack.storage.get(created._id)) as Record<string, unknown>;
    expect(raw.label).toBe('visible');
    for (const name of Object.keys(values).filter((k) => k !== 'label')) {
      expect(raw[name]).toEqual({ '~enc': 1, scope: 'default', kid: expect.any(String), iv: expect.any(String), ct: expect.any(String) });
    }
    const json = JSON.stringify(raw);
    for (const secret of ['12-34', '1990-02-28', 'nested', values.owner]) expect(json).not.toContain(secret);
    expect(await stack.getDocument(created._id)).toMatchObject(values);
    // a selector matches the decrypted values
    expect(await stack.findDocuments('Secret', { pin: '12-34', scores: { $elemMatch: { $eq: 2 } } })).toHaveLength(1);
  });

  it('validate the plaintext before sealing', async () => {
    const { stack, values } = await unlocked();
    await expectRefused(stack.createDoc({ '~class': 'Secret', ...values, pin: 'too long a pin' }), 'DS_VALIDATION_MAX_LENGTH', 'pin');
    await expectRefused(stack.createDoc({ '~class': 'Secret', ...values, owner: 'Person-nobody' }), 'DS_VALIDATION_FOREIGN_KEY', 'owner');
    await expectRefused(stack.createDoc({ '~class': 'Secret', ...values, scores: [1, 1.5] }), 'DS_VALIDATION_INTEGER', 'scores[1]');
    expect(await stack.findDocuments('Secret')).toHaveLength(0);
  });

  it('an update keeps the ciphertext of unchanged values and re-seals changed ones', async () => {
    const { stack, values } = await unlocked();
    const doc = await stack.createDoc({ '~class': 'Secret', ...values });
    const before = (await stack.storage.get(doc._id)) as Record<string, { iv?: string }>;
    await stack.updateDoc(doc._id, { label: 'renamed', count: 8 });
    const after = (await stack.storage.get(doc._id)) as Record<string, { iv?: string }>;
    expect(after.pin).toEqual(before.pin);
    expect(after.count.iv).not.toBe(before.count.iv);
    expect(await stack.getDocument(doc._id)).toMatchObject({ label: 'renamed', count: 8, pin: '12-34' });
  });

  it('refuses a document whose ~scope the keyring does not know, and encrypted primary keys', async () => {
    const { stack, values } = await unlocked();
    await expectRefused(stack.createDoc({ '~class': 'Secret', ...values, '~scope': 'nobody-made-this' }), 'DS_ENCRYPTION_SCOPE_UNKNOWN', '~scope');
    expect(await stack.findDocuments('Secret')).toHaveLength(0);
    const { Class } = await import('../../../index.js');
    await expectRefused(Class.create(stack, 'Keyed', 'class', '', { k: { type: 'string', primaryKey: true, encrypted: true } }), 'DS_ATTRIBUTE_ENCRYPTED_PRIMARY_KEY', 'k');
    await expectRefused(Class.create(stack, 'Plain', 'class', '', { k: { type: 'string', encrypted: true } }, { simple: true }), 'DS_ATTRIBUTE_ENCRYPTED_SIMPLE', 'k');
  });

  it('seal under the document scope, else the class defaultScope', async () => {
    const stack = await memoryStack();
    await stack.unlock(PASSPHRASE);
    await stack.keyring.createScope('team');
    await stack.keyring.createScope('hr');
    await secretClasses(stack, { defaultScope: 'hr' });
    const inHr = await stack.createDoc({ '~class': 'Secret', pin: '1' });
    const inTeam = await stack.createDoc({ '~class': 'Secret', pin: '2', '~scope': 'team' });
    expect(((await stack.storage.get(inHr._id)) as Record<string, { scope: string }>).pin.scope).toBe('hr');
    expect(((await stack.storage.get(inTeam._id)) as Record<string, { scope: string }>).pin.scope).toBe('team');
    expect(await stack.keyring.scopes()).toEqual(['default', 'hr', 'team']);
    await expectRefused(stack.keyring.createScope('team'), 'DS_ENCRYPTION_SCOPE_EXISTS');
  });
});
