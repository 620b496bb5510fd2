/** Encrypted attributes through a transaction: checked and read as plaintext inside, sealed when stored. */
import { describe, expect, it } from 'vitest';
import { isSealed } from '../../../plugins/encryption/index.js';
import { memoryStack, rawDb } from '../../helpers/stack.js';
import { PASSPHRASE, secretClasses } from '../encryption/setup.js';

describe('transactions and encryption', () => {
  it('stores sealed values and reads plaintext, inside and after', async () => {
    const stack = await memoryStack();
    await stack.unlock(PASSPHRASE);
    await secretClasses(stack);
    const existing = await stack.createDoc({ '~class': 'Secret', label: 'a', pin: '1111' });
    const id = await stack.transaction(async (tx) => {
      const created = await tx.createDoc({ '~class': 'Secret', label: 'b', pin: '2222', count: 3 });
      await tx.updateDoc(existing._id, { pin: '3333' });
      expect((await tx.getDocument(existing._id))?.pin).toBe('3333');
      expect((await tx.findDocuments('Secret', { pin: '2222' })).map((d) => d._id)).toEqual([created._id]);
      expect((await tx.createDoc({ '~class': 'Secret', pin: 'far too long' }).catch((e) => e.code))).toBe('DS_VALIDATION_MAX_LENGTH');
      return created._id;
    });
    expect((await stack.getDocument(id))?.pin).toBe('2222');
    expect((await stack.getDocument(existing._id))?.pin).toBe('3333');
    const raw = (await rawDb(stack).get(id)) as Record<string, unknown>;
    expect(isSealed(raw.pin)).toBe(true);
  });
});
