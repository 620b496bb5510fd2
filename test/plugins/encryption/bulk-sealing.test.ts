import { describe, expect, it } from 'vitest';
import { memoryStack } from '../../helpers/stack.js';
import { fromBase64, randomIvs, toBase64 } from '../../../plugins/encryption/crypto.js';
import { PASSPHRASE, secretClasses } from './setup.js';

describe('bulk sealing', () => {
  it('encodes base64 exactly as btoa does, and decodes it back', () => {
    for (let length = 0; length < 100; length++) {
      const bytes = globalThis.crypto.getRandomValues(new Uint8Array(length));
      const text = toBase64(bytes);
      expect(text).toBe(btoa(String.fromCharCode(...bytes)));
      expect([...fromBase64(text)]).toEqual([...bytes]);
    }
  });

  it('draws distinct 96-bit IVs, past one getRandomValues call', () => {
    const ivs = randomIvs(6000); // more than 65,536 bytes: two calls
    expect(ivs).toHaveLength(6000);
    expect(ivs.every((iv) => iv.byteLength === 12)).toBe(true);
    expect(new Set(ivs.map((iv) => toBase64(iv))).size).toBe(6000);
  });

  it('seals every value of a createDocs call under its own IV, and each opens', async () => {
    const stack = await memoryStack();
    await stack.unlock(PASSPHRASE);
    await secretClasses(stack);
    const docs = await stack.createDocs(Array.from({ length: 40 }, (_, i) => ({ '~class': 'Secret', label: `d${i}`, pin: `p${i}`, extra: { n: i } })));
    const ivs = new Set<string>();
    for (const [i, doc] of docs.entries()) {
      expect(doc).toMatchObject({ pin: `p${i}`, extra: { n: i } }); // the write's result, from the cache
      const raw = (await stack.storage.get(doc._id)) as Record<string, { iv: string; ct: string }>;
      for (const name of ['pin', 'extra']) {
        expect(fromBase64(raw[name]!.iv).byteLength).toBe(12);
        ivs.add(raw[name]!.iv);
      }
    }
    expect(ivs.size).toBe(80); // never an IV used twice under the scope's key
    stack.lock(); // forget the decrypted values: the reads below really decrypt
    await stack.unlock(PASSPHRASE);
    for (const [i, doc] of docs.entries()) expect(await stack.getDocument(doc._id)).toMatchObject({ pin: `p${i}`, extra: { n: i } });
    await stack.close();
  });
});
