/**
 * `bytes` pseudo-random bytes from a seed (xorshift32): the page (test/browser/page.ts) makes a
 * file from them, the Node side of test/browser/attachments.test.ts the same bytes to compare.
 */
export function seededBytes(bytes: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 255;
  }
  return out;
}
