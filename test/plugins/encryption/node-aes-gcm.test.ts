import { describe, expect, it } from 'vitest';
import * as nodeAes from '../../../plugins/encryption/aes-gcm.js';
import * as browserAes from '../../../plugins/encryption/aes-gcm.browser.js';
import { encryptJson, fromBase64, generateDataKey, generateWrappingKey, toBase64, unwrapKey, wrapKey } from '../../../plugins/encryption/crypto.js';
import type { SealedValue } from '../../../plugins/encryption/sealed.js';
import { DEFAULT_SCOPE, Keyring } from '../../../plugins/encryption/keyring.js';
import type { ClientStack } from '../../../index.js';
import { expectRefused, memoryStack, rawDb } from '../../helpers/stack.js';
import { PASSPHRASE, secretClasses } from './setup.js';

// Values are sealed by node:crypto in Node (aes-gcm.ts) and by WebCrypto in the browser bundle
// (aes-gcm.browser.ts): both must give the same bytes, open each other's, and refuse the same things.
const subtle = globalThis.crypto.subtle;
const encoder = new TextEncoder();
const LABEL = 'docstack:v1|doc-1|Secret|pin';
const TEXTS = ['"1234"', '{"phone":"+33 6 00000001","tags":["a","b"],"score":1}', JSON.stringify('é ✓ 🔐 '.repeat(40)), '""'];

/** A value key as the keyring holds it: unwrapped, not extractable. */
async function heldKey(): Promise<CryptoKey> {
  const wrapper = await generateWrappingKey();
  const wrapped = await wrapKey(await generateDataKey(), wrapper, 'scope-key');
  return unwrapKey(wrapped, wrapper, 'scope-key', ['encrypt', 'decrypt']);
}

const iv = () => globalThis.crypto.getRandomValues(new Uint8Array(12));

/** Plain WebCrypto, as the browser build seals: base64 of ciphertext || tag. */
async function webSeal(key: CryptoKey, ivBytes: Uint8Array<ArrayBuffer>, label: string, text: string): Promise<string> {
  return toBase64(await subtle.encrypt({ name: 'AES-GCM', iv: ivBytes, additionalData: encoder.encode(label) }, key, encoder.encode(text)));
}

async function webOpen(key: CryptoKey, ivText: string, label: string, ct: string): Promise<string> {
  return new TextDecoder().decode(await subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(ivText), additionalData: encoder.encode(label) }, key, fromBase64(ct)));
}

/** Flips one bit of one byte of a base64 text. */
/** A memory stack, unlocked, with the Person and Secret classes of the encryption suite. */
async function unlockedSecrets() {
  const stack = await memoryStack();
  await stack.unlock(PASSPHRASE);
  await secretClasses(stack);
  return stack;
}

function flip(text: string, at: number): string {
  const bytes = fromBase64(text);
  bytes[at % bytes.length]! ^= 1;
  return toBase64(bytes);
}

describe("values' AES-GCM: node:crypto in Node, WebCrypto in the browser, the same bytes", () => {
  it('seals byte for byte as WebCrypto does, on a key that is not extractable', async () => {
    const key = await heldKey();
    expect(key.extractable).toBe(false);
    for (const text of TEXTS) {
      const ivBytes = iv();
      const sealed = nodeAes.sealText(key, ivBytes, LABEL, text);
      expect(typeof sealed).toBe('string'); // synchronous in Node: no promise per value
      expect(sealed).toBe(await webSeal(key, ivBytes, LABEL, text));
      expect(await browserAes.sealText(key, ivBytes, LABEL, text)).toBe(sealed);
    }
  });

  it('what one seals the other opens, both ways', async () => {
    const key = await heldKey();
    for (const text of TEXTS) {
      const ivBytes = iv();
      const byNode = nodeAes.sealText(key, ivBytes, LABEL, text) as string;
      expect(await webOpen(key, toBase64(ivBytes), LABEL, byNode)).toBe(text);
      expect(await browserAes.openText(key, toBase64(ivBytes), LABEL, byNode)).toBe(text);
      const byWeb = await webSeal(key, ivBytes, LABEL, text);
      expect(nodeAes.openText(key, toBase64(ivBytes), LABEL, byWeb)).toBe(text);
    }
  });

  it('refuses a wrong label, key, IV or a changed byte the way WebCrypto does (OperationError)', async () => {
    const key = await heldKey();
    const other = await heldKey();
    const ivText = toBase64(iv());
    const ct = nodeAes.sealText(key, fromBase64(ivText), LABEL, TEXTS[1]!) as string;
    const cases: [string, CryptoKey, string, string, string][] = [
      ['another label', key, ivText, 'docstack:v1|doc-2|Secret|pin', ct],
      ['another key', other, ivText, LABEL, ct],
      ['another IV', key, toBase64(iv()), LABEL, ct],
      ['a changed ciphertext byte', key, ivText, LABEL, flip(ct, 3)],
      ['a changed tag byte', key, ivText, LABEL, flip(ct, fromBase64(ct).length - 1)],
      ['a cut tag', key, ivText, LABEL, toBase64(fromBase64(ct).subarray(0, 10))],
    ];
    for (const [what, k, ivt, label, text] of cases) {
      const nodeError = (() => {
        try {
          nodeAes.openText(k, ivt, label, text);
        } catch (err) {
          return err as DOMException;
        }
        throw new Error(`node:crypto opened ${what}`);
      })();
      const webError = await Promise.resolve(browserAes.openText(k, ivt, label, text)).then(() => new Error(`WebCrypto opened ${what}`), (err: DOMException) => err);
      expect([what, nodeError.name]).toEqual([what, 'OperationError']);
      expect([what, webError.name]).toEqual([what, 'OperationError']);
    }
  });

  it('refuses a key without the usage, as WebCrypto does', async () => {
    const wrapper = await generateWrappingKey();
    const decryptOnly = await unwrapKey(await wrapKey(await generateDataKey(), wrapper, 'k'), wrapper, 'k', ['decrypt']);
    expect(() => nodeAes.sealText(decryptOnly, iv(), LABEL, '1')).toThrow(expect.objectContaining({ name: 'InvalidAccessError' }));
    await expect(browserAes.sealText(decryptOnly, iv(), LABEL, '1')).rejects.toMatchObject({ name: 'InvalidAccessError' });
    expect(() => nodeAes.sealText(wrapper, iv(), LABEL, '1')).toThrow(expect.objectContaining({ name: 'InvalidAccessError' }));
  });

  it('draws a fresh IV per value: the same value twice is two different payloads', async () => {
    const key = await heldKey();
    const sealed = await Promise.all(Array.from({ length: 50 }, () => encryptJson(key, 'same', LABEL)));
    expect(new Set(sealed.map((s) => s.iv)).size).toBe(50);
    expect(new Set(sealed.map((s) => s.ct)).size).toBe(50);
  });
});

describe('a stack in Node reads what WebCrypto sealed, and WebCrypto opens what it seals', () => {
  async function stackWithSecret() {
    const stack = await unlockedSecrets();
    const doc = await stack.createDoc({ '~class': 'Secret', label: 'l', pin: '1234', extra: { n: 1 } });
    return { stack, doc };
  }

  it('the stored payload of a Node stack opens with plain WebCrypto under its label', async () => {
    const { stack, doc } = await stackWithSecret();
    const raw = (await stack.storage.get(doc._id)) as Record<string, SealedValue>;
    const key = await scopeKey(stack, raw.pin!.kid);
    expect(JSON.parse(await webOpen(key, raw.pin!.iv, `docstack:v1|${doc._id}|Secret|pin`, raw.pin!.ct))).toBe('1234');
    expect(JSON.parse(await webOpen(key, raw.extra!.iv, `docstack:v1|${doc._id}|Secret|extra`, raw.extra!.ct))).toEqual({ n: 1 });
    await stack.close();
  });

  it('a payload sealed by plain WebCrypto reads back; one under another key is DS_ENCRYPTION_INTEGRITY', async () => {
    const { stack, doc } = await stackWithSecret();
    const raw = (await stack.storage.get(doc._id)) as Record<string, SealedValue>;
    const key = await scopeKey(stack, raw.pin!.kid);
    const ivBytes = iv();
    const byWeb = { ...raw.pin!, iv: toBase64(ivBytes), ct: await webSeal(key, ivBytes, `docstack:v1|${doc._id}|Secret|pin`, '"5678"') };
    await rawDb(stack).put({ ...raw, pin: byWeb });
    stack.lock(); // forget decrypted values: the read really decrypts, through node:crypto
    await stack.unlock(PASSPHRASE);
    expect(await stack.getDocument(doc._id)).toMatchObject({ pin: '5678' });

    const stranger = await heldKey();
    const again = (await stack.storage.get(doc._id)) as Record<string, SealedValue>;
    const forged = { ...raw.pin!, iv: toBase64(ivBytes), ct: await webSeal(stranger, ivBytes, `docstack:v1|${doc._id}|Secret|pin`, '"0000"') };
    await rawDb(stack).put({ ...again, pin: forged });
    stack.lock();
    await stack.unlock(PASSPHRASE);
    await expectRefused(stack.getDocument(doc._id), 'DS_ENCRYPTION_INTEGRITY', 'pin');
    await stack.close();
  });
});

describe('the decrypted-value cache (keyed by the ciphertext)', () => {
  it('a payload moved to another document or attribute misses the warm cache and is refused', async () => {
    const stack = await unlockedSecrets();
    const [a, b] = await stack.createDocs([
      { '~class': 'Secret', label: 'a', pin: '1111', tags: ['x'] },
      { '~class': 'Secret', label: 'b', pin: '2222' },
    ]);
    expect(await stack.getDocument(a!._id)).toMatchObject({ pin: '1111' }); // the cache holds a's values now
    const rawA = (await stack.storage.get(a!._id)) as Record<string, unknown>;
    const rawB = (await stack.storage.get(b!._id)) as Record<string, unknown>;
    await rawDb(stack).put({ ...rawB, pin: rawA.pin }); // same ciphertext, another document
    await rawDb(stack).put({ ...rawA, tags: rawA.pin }); // same ciphertext, another attribute
    await expectRefused(stack.getDocument(b!._id), 'DS_ENCRYPTION_INTEGRITY', 'pin');
    await expectRefused(stack.getDocument(a!._id), 'DS_ENCRYPTION_INTEGRITY', 'tags');
    await stack.close();
  });

  it('a read hands out its own copy: changing it changes neither the cache nor the next read', async () => {
    const stack = await unlockedSecrets();
    const doc = await stack.createDoc({ '~class': 'Secret', label: 'l', extra: { n: 1 }, tags: ['a'] });
    for (let i = 0; i < 3; i++) {
      const read = (await stack.getDocument(doc._id)) as unknown as { extra: { n: number }; tags: string[] };
      expect(read).toMatchObject({ extra: { n: 1 }, tags: ['a'] });
      read.extra.n = 99;
      read.tags.push('changed');
    }
    await stack.close();
  });
});

describe('the batch seal (sealed ahead of each document)', () => {
  it('a value a beforeWrite tap changes after the batch was sealed is sealed again as changed, never stored in clear', async () => {
    const stack = await unlockedSecrets();
    // runs after the batch seal (sealDraft's first await) and before the value is taken: it edits the draft in place
    stack.hooks.beforeWrite.tapPromise({ name: 'test-edit', stage: -1 }, async (doc) => {
      if (doc.label === 'edit me') Object.assign(doc, { pin: '9999', tags: ['changed'] });
      return doc;
    });
    const made = await stack.createDocs([
      { '~class': 'Secret', label: 'keep', pin: '1111', tags: ['a'] },
      { '~class': 'Secret', label: 'edit me', pin: '2222', tags: ['b'] },
    ]);
    expect(await stack.getDocument(made[0]!._id)).toMatchObject({ pin: '1111', tags: ['a'] });
    expect(await stack.getDocument(made[1]!._id)).toMatchObject({ pin: '9999', tags: ['changed'] });
    const stored = JSON.stringify(await stack.storage.get(made[1]!._id));
    for (const clear of ['9999', '2222', 'changed']) expect(stored).not.toContain(clear);
    await stack.close();
  });
});

/** The scope key behind `kid`, unwrapped from the stack's stored keyring by a second Keyring (WebCrypto's unwrap). */
async function scopeKey(stack: ClientStack, kid: string): Promise<CryptoKey> {
  const keyring = new Keyring(stack);
  await keyring.unlock(PASSPHRASE);
  const key = await keyring.keyFor(DEFAULT_SCOPE, kid);
  if (!key) throw new Error(`the keyring holds no key ${kid}`);
  return key;
}
