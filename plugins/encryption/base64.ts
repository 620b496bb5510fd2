/** Standard base64 (with padding) for the encryption plugin's stored fields, without Node's Buffer. */
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The same text as btoa. Encoded by table rather than through a binary string and btoa: two to
 * four times faster on the small ciphertexts of a bulk seal.
 */
export function toBase64(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  let i = 0;
  for (; i + 2 < view.length; i += 3) {
    const n = (view[i]! << 16) | (view[i + 1]! << 8) | view[i + 2]!;
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + BASE64[n & 63]!;
  }
  if (i < view.length) {
    const n = (view[i]! << 16) | ((i + 1 < view.length ? view[i + 1]! : 0) << 8);
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + (i + 1 < view.length ? BASE64[(n >> 6) & 63]! : '=') + '=';
  }
  return out;
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
