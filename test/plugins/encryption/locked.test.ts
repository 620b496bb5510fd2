import { describe, expect, it } from 'vitest';
import { createStack } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { browserWithout, expectRefused, memoryStack, rawDb, track, uniqueName } from '../../helpers/stack.js';
import { PASSPHRASE, secretClasses } from './setup.js';

async function withSecret() {
  const stack = await memoryStack();
  await stack.unlock(PASSPHRASE);
  await secretClasses(stack);
  const doc = await stack.createDoc({ '~class': 'Secret', label: 'l', pin: '1234', tags: ['a'] });
  return { stack, doc };
}

describe('passphrase and integrity', () => {
  it('a wrong passphrase is refused and leaves the stack locked', async () => {
    const name = uniqueName('wrong-pass');
    const first = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    await first.unlock(PASSPHRASE);
    const second = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    await expectRefused(second.unlock('not the passphrase'), 'DS_ENCRYPTION_PASSPHRASE');
    expect(second.keyring.unlocked).toBe(false);
    await second.unlock(PASSPHRASE);
    expect(second.keyring.unlocked).toBe(true);
  });

  it('a tampered ciphertext fails to open with a clear error', async () => {
    const { stack, doc } = await withSecret();
    const raw = (await stack.storage.get(doc._id)) as Record<string, { ct: string }>;
    const ct = raw.pin.ct;
    raw.pin.ct = (ct[0] === 'A' ? 'B' : 'A') + ct.slice(1);
    await rawDb(stack).put(raw);
    stack.lock(); // forget decrypted values
    await stack.unlock(PASSPHRASE);
    const err = await expectRefused(stack.getDocument(doc._id), 'DS_ENCRYPTION_INTEGRITY', 'pin');
    expect(err.message).toMatch(/altered, or moved/);
  });

  it('a ciphertext moved to another document or attribute fails to open', async () => {
    const { stack, doc } = await withSecret();
    const other = await stack.createDoc({ '~class': 'Secret', label: 'other', pin: '0000' });
    const source = (await stack.storage.get(doc._id)) as Record<string, unknown>;
    const target = (await stack.storage.get(other._id)) as Record<string, unknown>;
    await rawDb(stack).put({ ...target, pin: source.pin });
    await rawDb(stack).put({ ...source, label: 'x', tags: source.pin });
    stack.lock();
    await stack.unlock(PASSPHRASE);
    await expectRefused(stack.getDocument(other._id), 'DS_ENCRYPTION_INTEGRITY', 'pin');
    await expectRefused(stack.getDocument(doc._id), 'DS_ENCRYPTION_INTEGRITY', 'tags');
  });
});

describe('a locked stack', () => {
  it('reads encrypted attributes as sealed markers, never failing', async () => {
    const { stack, doc } = await withSecret();
    stack.lock();
    expect(await stack.getDocument(doc._id)).toMatchObject({ label: 'l', pin: { '~sealed': true, scope: 'default' }, tags: { '~sealed': true, scope: 'default' } });
    expect(await stack.findDocuments('Secret')).toHaveLength(1);
  });

  it('returns sealed markers on every read path, write results included (never the raw payload)', async () => {
    const { stack, doc } = await withSecret();
    const secrets = await stack.getClass('Secret');
    stack.lock();
    const marker = { '~sealed': true, scope: 'default' };
    const sealedFields = (d: Record<string, unknown> | null) => ({ pin: d?.pin, tags: d?.tags });
    const expected = { pin: marker, tags: marker };
    expect(sealedFields(await stack.getDocument(doc._id))).toEqual(expected);
    expect(sealedFields((await stack.findDocuments('Secret'))[0])).toEqual(expected);
    expect(sealedFields((await secrets.getCards())[0])).toEqual(expected);
    expect(sealedFields(await secrets.get(doc._id))).toEqual(expected);
    const updated = await stack.updateDoc(doc._id, { label: 'changed while locked' });
    expect(sealedFields(updated)).toEqual(expected);
    expect(JSON.stringify(updated)).not.toContain('"~enc"');
    expect(sealedFields(await secrets.addOrUpdateCard({ _id: doc._id, label: 'again' }))).toEqual(expected);
    const deleted = await stack.deleteDocument(doc._id);
    expect(sealedFields(deleted)).toEqual(expected);
    expect(sealedFields(await stack.getDocument(doc._id, { includeInactive: true }))).toEqual(expected);
    // unlocked again, the same paths read plaintext (the markers never reached the cache)
    await stack.unlock(PASSPHRASE);
    expect(await stack.getDocument(doc._id, { includeInactive: true })).toMatchObject({ pin: '1234', tags: ['a'] });
  });

  it('updates other attributes keeping the stored ciphertext unchanged (also when the read document is written back)', async () => {
    const { stack, doc } = await withSecret();
    const before = (await stack.storage.get(doc._id)) as Record<string, unknown>;
    stack.lock();
    await stack.updateDoc(doc._id, { label: 'changed while locked' });
    const read = await stack.getDocument(doc._id);
    const secrets = await stack.getClass('Secret');
    await secrets.addOrUpdateCard({ ...read!, label: 'written back' }); // markers in the input
    const after = (await stack.storage.get(doc._id)) as Record<string, unknown>;
    expect(after.pin).toEqual(before.pin);
    expect(after.tags).toEqual(before.tags);
    expect(after.label).toBe('written back');
    await stack.unlock(PASSPHRASE);
    expect(await stack.getDocument(doc._id)).toMatchObject({ pin: '1234', tags: ['a'], label: 'written back' });
  });

  it('refuses a new value for an encrypted attribute, storing nothing', async () => {
    const { stack, doc } = await withSecret();
    stack.lock();
    const before = (await stack.storage.get(doc._id)) as Record<string, unknown>;
    await expectRefused(stack.updateDoc(doc._id, { pin: '9999' }), 'DS_ENCRYPTION_LOCKED');
    await expectRefused(stack.createDoc({ '~class': 'Secret', pin: '5555' }), 'DS_ENCRYPTION_LOCKED');
    expect(await stack.storage.get(doc._id)).toEqual(before);
    expect(await stack.findDocuments('Secret')).toHaveLength(1);
    // documents without encrypted values are still written while locked
    await stack.createDoc({ '~class': 'Secret', label: 'clear only' });
    expect(await stack.findDocuments('Secret')).toHaveLength(2);
  });
});

describe('a forged payload written locally', () => {
  const forged = { '~enc': 1, scope: 'default', kid: 'made-up', iv: 'AAAAAAAAAAAAAAAA', ct: 'QUJDREVGR0hJSktMTU5PUA==' };

  it('is validated as the value it is (refused), locked, unlocked, on create and on update', async () => {
    const { stack, doc } = await withSecret();
    const before = await stack.storage.get(doc._id);
    for (const locked of [false, true]) {
      if (locked) stack.lock();
      await expectRefused(stack.createDoc({ '~class': 'Secret', label: 'x', pin: forged as never }), 'DS_VALIDATION_TYPE', 'pin');
      const err = await expectRefused(stack.updateDoc(doc._id, { pin: forged }), 'DS_VALIDATION_TYPE', 'pin');
      expect(err.path).toBe('pin');
    }
    expect(await stack.storage.get(doc._id)).toEqual(before);
    expect(await stack.findDocuments('Secret')).toHaveLength(1);
  });

  it('is refused on a stack without the encryption plugin too: the class is read-only there', async () => {
    const full = await memoryStack();
    await secretClasses(full);
    // the class comes from a peer: this stack cannot define `encrypted` itself
    const stack = await memoryStack({ plugins: browserWithout('encryption') });
    await expectRefused(secretClasses(stack), 'DS_ATTRIBUTE_CONFIG_INVALID');
    const classes = await Promise.all(['Person', 'Secret'].map((id) => rawDb(full).get(id, { revs: true })));
    expect((await stack.ingest(classes)).every((r) => r.ok)).toBe(true);
    await expectRefused(stack.createDoc({ '~class': 'Secret', label: 'x', pin: forged as never }), 'DS_CAPABILITY_MISSING', 'pin');
    expect(await stack.findDocuments('Secret')).toEqual([]);
  });
});
