/**
 * The cryptographic primitives of the encryption plugin. AES-256-GCM everywhere (values and key
 * wrapping), with a fresh random 96-bit IV per operation and additional authenticated data naming
 * what is sealed, so a ciphertext moved elsewhere fails to open. Key wrapping, PBKDF2 and RSA go
 * through WebCrypto (`globalThis.crypto.subtle`) on every platform; the per-value seal and open
 * go through aes-gcm.ts: node:crypto's AES-GCM in Node, WebCrypto in the browser bundle (which
 * swaps in aes-gcm.browser.ts) — the same bytes either way.
 */
import { fromBase64, toBase64 } from './base64.js';
import { openText, sealText } from './aes-gcm.js';

const subtle = () => globalThis.crypto.subtle;
const encoder = new TextEncoder();

/** PBKDF2-SHA256 iterations for passphrase-derived keys: OWASP's 2023 floor for SHA-256. */
export const PBKDF2_ITERATIONS = 600_000;

export { fromBase64, toBase64 } from './base64.js';

export function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

/** A short random key id. */
export function newKid(): string {
  return toBase64(randomBytes(9)).replace(/[+/=]/g, (c) => ({ '+': '-', '/': '_', '=': '' })[c]!);
}

const aad = (label: string) => encoder.encode(label);

/** The key-encryption key derived from a passphrase (never stored). */
export async function deriveKek(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations = PBKDF2_ITERATIONS): Promise<CryptoKey> {
  return deriveKekFrom(await passphraseKey(passphrase), salt, iterations);
}

/**
 * The passphrase as a non-extractable PBKDF2 key: what an unlocked keyring keeps instead of the
 * passphrase, to open a keyring that arrives later (each has its own salt) without asking again.
 */
export function passphraseKey(passphrase: string): Promise<CryptoKey> {
  return subtle().importKey('raw', encoder.encode(passphrase), 'PBKDF2', false, ['deriveKey']) as Promise<CryptoKey>;
}

export function deriveKekFrom(base: CryptoKey, salt: Uint8Array<ArrayBuffer>, iterations = PBKDF2_ITERATIONS): Promise<CryptoKey> {
  return subtle().deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, { name: 'AES-GCM', length: 256 }, false, ['wrapKey', 'unwrapKey']) as Promise<CryptoKey>;
}

export function generateWrappingKey(): Promise<CryptoKey> {
  return subtle().generateKey({ name: 'AES-GCM', length: 256 }, true, ['wrapKey', 'unwrapKey']) as Promise<CryptoKey>;
}

export function generateDataKey(): Promise<CryptoKey> {
  return subtle().generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']) as Promise<CryptoKey>;
}

export interface Wrapped {
  iv: string;
  wrapped: string;
}

export async function wrapKey(key: CryptoKey, wrapper: CryptoKey, label: string): Promise<Wrapped> {
  const iv = randomBytes(12);
  const wrapped = await subtle().wrapKey('raw', key, wrapper, { name: 'AES-GCM', iv, additionalData: aad(label) });
  return { iv: toBase64(iv), wrapped: toBase64(wrapped) };
}

/** Throws (OperationError) when the wrapper or the label is wrong: GCM authenticates both. */
export async function unwrapKey(w: Wrapped, wrapper: CryptoKey, label: string, usages: KeyUsage[], extractable = false): Promise<CryptoKey> {
  return subtle().unwrapKey('raw', fromBase64(w.wrapped), wrapper, { name: 'AES-GCM', iv: fromBase64(w.iv), additionalData: aad(label) }, { name: 'AES-GCM', length: 256 }, extractable, usages);
}

/** Wraps a key for the holder of an RSA-OAEP private key. */
export async function wrapForPublicKey(key: CryptoKey, publicKey: CryptoKey): Promise<string> {
  return toBase64(await subtle().wrapKey('raw', key, publicKey, { name: 'RSA-OAEP' }));
}

export async function unwrapWithPrivateKey(wrapped: string, privateKey: CryptoKey, usages: KeyUsage[], extractable: boolean): Promise<CryptoKey> {
  return subtle().unwrapKey('raw', fromBase64(wrapped), privateKey, { name: 'RSA-OAEP' }, { name: 'AES-GCM', length: 256 }, extractable, usages);
}

/**
 * Seals `value` (its JSON) under `label`. A batch passes its own fresh IV (a slice of one
 * getRandomValues call for the whole batch) and the JSON it already made: per value, each
 * of those is a measurable share of a bulk insert's cost. Returns the payload directly where
 * the platform's AES-GCM is synchronous (Node), a promise of it where it is not (WebCrypto):
 * a bulk seal in Node then makes no promise per value.
 */
export function encryptJson(
  key: CryptoKey,
  value: unknown,
  label: string,
  iv: Uint8Array<ArrayBuffer> = randomBytes(12),
  json = JSON.stringify(value),
): { iv: string; ct: string } | Promise<{ iv: string; ct: string }> {
  const ct = sealText(key, iv, label, json);
  return typeof ct === 'string' ? { iv: toBase64(iv), ct } : ct.then((text) => ({ iv: toBase64(iv), ct: text }));
}

/** `count` fresh random 96-bit GCM IVs from as few getRandomValues calls as its 65,536-byte limit allows. */
export function randomIvs(count: number): Uint8Array<ArrayBuffer>[] {
  const out: Uint8Array<ArrayBuffer>[] = [];
  const perCall = Math.floor(65_536 / 12);
  for (let start = 0; start < count; start += perCall) {
    const n = Math.min(perCall, count - start);
    const block = randomBytes(12 * n);
    for (let i = 0; i < n; i++) out.push(block.subarray(12 * i, 12 * i + 12));
  }
  return out;
}

/** The JSON text `encryptJson` sealed (throws an OperationError when it does not open). */
export async function decryptText(key: CryptoKey, iv: string, ct: string, label: string): Promise<string> {
  return openText(key, iv, label, ct);
}
