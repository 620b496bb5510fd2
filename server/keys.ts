import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DocstackError } from '../index.js';
import type { JwtKeys, Logger, ServerConfig } from './context.js';

const PRIVATE_FILE = 'jwt-private.pem';
const PUBLIC_FILE = 'jwt-public.pem';
const PASSPHRASE_FILE = 'encryption-passphrase';

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

function openPrivateKey(pemText: string, passphrase: string | null, where: string): KeyObject {
  const encrypted = pemText.includes('ENCRYPTED PRIVATE KEY');
  if (encrypted && !passphrase) {
    throw new DocstackError('DS_SERVER_KEY', `The JWT private key (${where}) is encrypted: set ENCRYPTION_PASSPHRASE to the passphrase it was written with.`);
  }
  try {
    return createPrivateKey(encrypted ? { key: pemText, format: 'pem', passphrase: passphrase! } : { key: pemText, format: 'pem' });
  } catch {
    throw new DocstackError('DS_SERVER_KEY', `The JWT private key (${where}) does not open: ${encrypted ? 'ENCRYPTION_PASSPHRASE is not the passphrase it was written with' : 'it is not a valid PEM key'}.`);
  }
}

/**
 * The node's RS256 signing keys: JWT_PRIVATE_KEY / JWT_PUBLIC_KEY from the environment, else
 * the pair kept in `<dataDir>/keys/`, generated on first run with the private key encrypted at
 * rest (PKCS#8, AES-256-CBC) under ENCRYPTION_PASSPHRASE. Without ENCRYPTION_PASSPHRASE a random
 * passphrase is generated and kept beside the keys (mode 0600) so a fresh machine starts; set
 * ENCRYPTION_PASSPHRASE in production so the key file alone opens nothing. The environment file
 * is never written.
 */
export async function loadJwtKeys(config: ServerConfig, log: Logger): Promise<JwtKeys> {
  if (config.jwtPrivateKeyPem) {
    const privateKey = openPrivateKey(config.jwtPrivateKeyPem, config.encryptionPassphrase, 'JWT_PRIVATE_KEY');
    const publicKey = config.jwtPublicKeyPem ? createPublicKey(config.jwtPublicKeyPem) : createPublicKey(privateKey);
    return { privateKey, publicKey };
  }
  const dir = join(config.dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const privatePath = join(dir, PRIVATE_FILE);
  const passphrasePath = join(dir, PASSPHRASE_FILE);
  const existing = await readIfExists(privatePath);
  let passphrase = config.encryptionPassphrase ?? (await readIfExists(passphrasePath))?.trim() ?? null;
  if (existing) {
    const privateKey = openPrivateKey(existing, passphrase, privatePath);
    const publicPem = await readIfExists(join(dir, PUBLIC_FILE));
    return { privateKey, publicKey: publicPem ? createPublicKey(publicPem) : createPublicKey(privateKey) };
  }
  if (!passphrase) {
    passphrase = randomBytes(32).toString('base64url');
    await writeSecret(passphrasePath, `${passphrase}\n`);
    log(`ENCRYPTION_PASSPHRASE is not set: generated one and kept it in ${passphrasePath} (mode 0600); set it in the environment for production`);
  }
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }) as string;
  await writeSecret(privatePath, privatePem);
  await writeFile(join(dir, PUBLIC_FILE), pair.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  log(`generated the JWT signing key pair in ${dir} (private key encrypted at rest)`);
  return { privateKey: pair.privateKey, publicKey: pair.publicKey };
}
