import { createCipheriv, createDecipheriv, KeyObject } from 'node:crypto';

/**
 * AES-GCM for the values the encryption plugin seals, Node's version: node:crypto, synchronous.
 * WebCrypto's `encrypt` in Node costs ~70 µs per small value (argument checks, a hop to the
 * crypto thread pool and back), node:crypto's cipher ≈ 6–9 µs on the same key, and a bulk insert
 * seals one value per encrypted attribute. The output is WebCrypto's, byte for byte: base64 of
 * `ciphertext || 16-byte tag`, so a value sealed here opens with crypto.subtle and the reverse.
 * The browser bundle (scripts/build-browser.mjs) swaps in aes-gcm.browser.ts (crypto.subtle).
 * Key wrapping, PBKDF2 and RSA stay WebCrypto on both (crypto.ts): they are not per value.
 */

const TAG_BYTES = 16;

interface NodeKey {
  cipher: 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm';
  key: KeyObject;
  encrypt: boolean;
  decrypt: boolean;
}

/** A CryptoKey's KeyObject, made once per key (KeyObject.from also takes non-extractable keys). */
const nodeKeys = new WeakMap<CryptoKey, NodeKey>();

/** WebCrypto's own refusals, so a caller sees the same error on both platforms. */
const failed = () => new DOMException('The operation failed for an operation-specific reason', 'OperationError');

function nodeKey(key: CryptoKey, usage: 'encrypt' | 'decrypt'): NodeKey {
  let entry = nodeKeys.get(key);
  if (!entry) {
    const algorithm = key.algorithm as AesKeyAlgorithm;
    if (algorithm.name !== 'AES-GCM' || ![128, 192, 256].includes(algorithm.length)) {
      throw new DOMException('The requested operation is not valid for the provided key', 'InvalidAccessError');
    }
    entry = {
      cipher: `aes-${algorithm.length as 128 | 192 | 256}-gcm`,
      key: KeyObject.from(key),
      encrypt: key.usages.includes('encrypt'),
      decrypt: key.usages.includes('decrypt'),
    };
    nodeKeys.set(key, entry);
  }
  if (!entry[usage]) throw new DOMException('The requested operation is not valid for the provided key', 'InvalidAccessError');
  return entry;
}

/** A Buffer as the Uint8Array it is (@types/node 20's Buffer does not type-check as one under TS 5.9's lib; no copy). */
const u8 = (buffer: Buffer): Uint8Array => buffer as unknown as Uint8Array;

/** Seals `text` (UTF-8) under `key`, `iv` and the additional data `aad`: base64 of ciphertext || tag. */
export function sealText(key: CryptoKey, iv: Uint8Array<ArrayBuffer>, aad: string, text: string): string | Promise<string> {
  const { cipher: algorithm, key: keyObject } = nodeKey(key, 'encrypt');
  const cipher = createCipheriv(algorithm, keyObject, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(u8(Buffer.from(aad, 'utf8')));
  const body = cipher.update(text, 'utf8');
  cipher.final(); // GCM holds nothing back: final only computes the tag
  return Buffer.concat([u8(body), u8(cipher.getAuthTag())]).toString('base64');
}

/**
 * Opens what sealText (or WebCrypto's AES-GCM) sealed: `iv` and `ct` in base64. Throws an
 * OperationError, as WebCrypto does, when the key, the additional data or a byte is wrong.
 */
export function openText(key: CryptoKey, iv: string, aad: string, ct: string): string | Promise<string> {
  const { cipher: algorithm, key: keyObject } = nodeKey(key, 'decrypt');
  const bytes = u8(Buffer.from(ct, 'base64'));
  const ivBytes = u8(Buffer.from(iv, 'base64'));
  if (bytes.length < TAG_BYTES || ivBytes.length === 0) throw failed();
  const decipher = createDecipheriv(algorithm, keyObject, ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAAD(u8(Buffer.from(aad, 'utf8')));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  const text = decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES), undefined, 'utf8');
  try {
    return text + decipher.final('utf8'); // the tag is checked here: nothing is returned before it
  } catch {
    throw failed();
  }
}
