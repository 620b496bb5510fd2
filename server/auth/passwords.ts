import { constants, createHash, privateDecrypt, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes: scrypt with one of OWASP's equivalent parameter sets, N=2^15, r=8, p=3: the
 * same order of work as N=2^17, p=1 with a quarter of the memory (32 MiB instead of 128 MiB a
 * hash; measured here 0.30 s against 0.74 s, the smaller block staying in cache), so a flood of
 * logins cannot take the node's memory. A random 16-byte salt per user, a 64-byte key, stored
 * self-describing as `scrypt$N$r$p$salt$hash` (base64): hashes written with other parameters
 * (the earlier N=2^17, r=8, p=1) still verify with their own. Callers on the node go through the
 * HashGate (hash-gate.ts), which bounds how many run at once.
 */
export const SCRYPT_N = 2 ** 15;
export const SCRYPT_R = 8;
export const SCRYPT_P = 3;
const KEY_LENGTH = 64;
const SALT_LENGTH = 16;
/** Stored parameters are bounded: a tampered hash must not make a login allocate gigabytes. */
const MAX_N = 2 ** 20;

function scryptAsync(password: string, salt: Uint8Array, N: number, r: number, p: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default maxmem (32 MB) is below that for N=2^17
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) => {
    // the async form runs on the libuv pool: a login does not block other requests
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = new Uint8Array(randomBytes(SALT_LENGTH));
  const key = await scryptAsync(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P);
  return ['scrypt', SCRYPT_N, SCRYPT_R, SCRYPT_P, Buffer.from(salt).toString('base64'), key.toString('base64')].join('$');
}

/** True when the password matches the stored hash; false for a mismatch or a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = typeof stored === 'string' ? stored.split('$') : [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const isPow2 = Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!isPow2 || !Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16) return false;
  const salt = new Uint8Array(Buffer.from(parts[4], 'base64'));
  const expected = new Uint8Array(Buffer.from(parts[5], 'base64'));
  if (salt.length === 0 || expected.length !== KEY_LENGTH) return false;
  const actual = await scryptAsync(password, salt, N, r, p);
  return timingSafeEqual(new Uint8Array(actual), expected);
}

/**
 * A hash of a random password, computed once: a login for a missing user is checked against
 * it so that "no such user" costs the same scrypt as "wrong password".
 */
export function dummyHash(): Promise<string> {
  return hashPassword(randomBytes(18).toString('base64'));
}

/**
 * The legacy credential check: the seed stored `legacyPassword` = base64 RSA-OAEP ciphertext of
 * the password under PSW_PUBLIC_KEY. It is opened with PSW_PRIVATE_KEY (OAEP, SHA-1: Node's
 * default, what the seed used) and compared in constant time. False on any decryption failure.
 */
export function verifyLegacyPassword(password: string, legacy: string, privateKeyPem: string): boolean {
  let plain: Buffer;
  try {
    plain = privateDecrypt({ key: privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING }, new Uint8Array(Buffer.from(legacy, 'base64')));
  } catch {
    return false;
  }
  // compare digests: timingSafeEqual needs equal lengths and the length must not leak either
  const a = new Uint8Array(createHash('sha256').update(new Uint8Array(plain)).digest());
  const b = new Uint8Array(createHash('sha256').update(password.normalize('NFC'), 'utf8').digest());
  return timingSafeEqual(a, b);
}
