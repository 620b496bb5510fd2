import type { openText as OpenText, sealText as SealText } from './aes-gcm.js';
import { fromBase64, toBase64 } from './base64.js';

/**
 * AES-GCM for the values the encryption plugin seals, the browser's version: WebCrypto
 * (crypto.subtle). The browser bundle (scripts/build-browser.mjs) puts this file in place of
 * aes-gcm.ts, Node's node:crypto version; both give the same bytes (base64 of ciphertext || tag).
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const sealText: typeof SealText = async (key, iv, aad, text) =>
  toBase64(await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(aad) }, key, encoder.encode(text)));

/** Throws WebCrypto's OperationError when the key, the additional data or a byte is wrong. */
export const openText: typeof OpenText = async (key, iv, aad, ct) =>
  decoder.decode(await globalThis.crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv), additionalData: encoder.encode(aad) }, key, fromBase64(ct)));
