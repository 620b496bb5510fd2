import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import type { JwtKeys, Logger, ServerConfig } from './context.js';
import { SERVER_ERRORS } from './errors-codes.js';

const PRIVATE_FILE = 'jwt-private.pem';
const PUBLIC_FILE = 'jwt-public.pem';
/** Where nodes before issue 26 kept a generated passphrase: inside DATA_DIR, beside the key it protects. */
const LEGACY_PASSPHRASE_FILE = 'encryption-passphrase';

/**
 * Where a generated passphrase is kept: ENCRYPTION_PASSPHRASE_FILE, else `<DATA_DIR>.passphrase`
 * beside the data folder — never inside it, so a copy of DATA_DIR alone opens nothing.
 */
export function passphraseFileOf(config: Pick<ServerConfig, 'dataDir' | 'encryptionPassphraseFile'>): string {
  const file = resolve(config.encryptionPassphraseFile ?? `${resolve(config.dataDir)}.passphrase`);
  const inside = relative(resolve(config.dataDir), file);
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
    throw SERVER_ERRORS.serverConfigInvalid(`ENCRYPTION_PASSPHRASE_FILE must be outside DATA_DIR (got ${JSON.stringify(file)}): a passphrase beside the key it protects protects nothing.`, { path: 'ENCRYPTION_PASSPHRASE_FILE' });
  }
  return file;
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function writeSecret(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  await chmod(path, 0o600);
}

function openPrivateKey(pemText: string, passphrase: string | null, where: string, passphraseFile: string | null = null): KeyObject {
  const encrypted = pemText.includes('ENCRYPTED PRIVATE KEY');
  if (encrypted && !passphrase) {
    const file = passphraseFile ? ` (or put it in ${passphraseFile}, outside DATA_DIR)` : '';
    throw SERVER_ERRORS.serverKey(`The JWT private key (${where}) is encrypted: set ENCRYPTION_PASSPHRASE to the passphrase it was written with${file}.`);
  }
  try {
    return createPrivateKey(encrypted ? { key: pemText, format: 'pem', passphrase: passphrase! } : { key: pemText, format: 'pem' });
  } catch {
    throw SERVER_ERRORS.serverKey(`The JWT private key (${where}) does not open: ${encrypted ? 'ENCRYPTION_PASSPHRASE is not the passphrase it was written with' : 'it is not a valid PEM key'}.`);
  }
}

/**
 * The node's RS256 signing keys: JWT_PRIVATE_KEY / JWT_PUBLIC_KEY from the environment, else
 * the pair kept in `<dataDir>/keys/`, generated on first run with the private key encrypted at
 * rest (PKCS#8, AES-256-CBC) under ENCRYPTION_PASSPHRASE. Without ENCRYPTION_PASSPHRASE a random
 * passphrase is generated and kept OUTSIDE the data folder (`passphraseFileOf`, mode 0600) so a
 * fresh machine starts and a copy of DATA_DIR alone opens neither the key nor what it protects
 * (sessions' tokens, the secrets). A passphrase an older node left in `keys/` is moved out. The
 * environment file is never written.
 */
export async function loadJwtKeys(config: ServerConfig, log: Logger): Promise<JwtKeys> {
  if (config.jwtPrivateKeyPem) {
    const privateKey = openPrivateKey(config.jwtPrivateKeyPem, config.encryptionPassphrase, 'JWT_PRIVATE_KEY');
    const publicKey = config.jwtPublicKeyPem ? createPublicKey(config.jwtPublicKeyPem) : createPublicKey(privateKey);
    return { privateKey, publicKey };
  }
  const dir = join(config.dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const privatePath = join(dir, PRIVATE_FILE);
  const existing = await readIfExists(privatePath);
  let passphrase = config.encryptionPassphrase;
  const passphrasePath = passphrase ? null : passphraseFileOf(config);
  if (passphrasePath) {
    await moveLegacyPassphrase(join(dir, LEGACY_PASSPHRASE_FILE), passphrasePath, log);
    passphrase = (await readIfExists(passphrasePath))?.trim() || null;
  }
  if (existing) {
    const privateKey = openPrivateKey(existing, passphrase, privatePath, passphrasePath);
    const publicPem = await readIfExists(join(dir, PUBLIC_FILE));
    return { privateKey, publicKey: publicPem ? createPublicKey(publicPem) : createPublicKey(privateKey) };
  }
  if (!passphrase) {
    passphrase = randomBytes(32).toString('base64url');
    await mkdir(dirname(passphrasePath!), { recursive: true, mode: 0o700 });
    await writeSecret(passphrasePath!, `${passphrase}\n`);
    log(`ENCRYPTION_PASSPHRASE is not set: generated one and kept it in ${passphrasePath} (outside DATA_DIR, mode 0600); set ENCRYPTION_PASSPHRASE from a secret store in production`);
  }
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }) as string;
  await writeSecret(privatePath, privatePem);
  await writeSecret(join(dir, PUBLIC_FILE), pair.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  log(`generated the JWT signing key pair in ${dir} (private key encrypted at rest)`);
  return { privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** A passphrase an older node kept in DATA_DIR/keys moves to its file outside DATA_DIR (once). */
async function moveLegacyPassphrase(legacy: string, target: string, log: Logger): Promise<void> {
  const content = await readIfExists(legacy);
  if (content === null) return;
  if ((await readIfExists(target)) === null) {
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await writeSecret(`${target}.tmp`, content);
    await rename(`${target}.tmp`, target);
  }
  await unlink(legacy);
  log(`moved the generated encryption passphrase out of DATA_DIR to ${target} (a copy of DATA_DIR alone no longer opens the key)`);
}
