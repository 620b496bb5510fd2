import { deriveKek, fromBase64, PBKDF2_ITERATIONS, randomBytes, toBase64, unwrapKey, unwrapWithPrivateKey, wrapForPublicKey, wrapKey } from './crypto.js';
import { checkScopeName, type Keyring } from './keyring.js';
import { ENCRYPTION_ERRORS } from './errors.js';

/**
 * A scope's keys wrapped for one recipient — by a passphrase agreed with them, or by their
 * RSA-OAEP public key — so one scope can be shared without sharing the keyring's passphrase.
 * Every key of the scope travels (old ones still open old values); the bundle says which is current.
 */
export interface ScopeBundle {
  format: 'docstack-scope-keys';
  version: 1;
  scope: string;
  current: string;
  method: 'passphrase' | 'rsa-oaep';
  kdf?: { name: 'PBKDF2'; hash: 'SHA-256'; iterations: number; salt: string };
  keys: { kid: string; wrapped: string; iv?: string }[];
}

export type Recipient = { passphrase: string } | { publicKey: CryptoKey };
export type Opener = { passphrase: string } | { privateKey: CryptoKey };

const bundleLabel = (scope: string, kid: string) => `docstack:scope-bundle|${scope}|${kid}`;

export async function exportScope(keyring: Keyring, scope: string, to: Recipient): Promise<ScopeBundle> {
  const entry = await keyring.scopeEntry(scope);
  if (!entry) throw ENCRYPTION_ERRORS.encryptionScopeUnknown(`The keyring has no scope "${scope}".`, { path: 'scope' });
  const bundle: ScopeBundle = { format: 'docstack-scope-keys', version: 1, scope, current: entry.current, method: 'passphrase', keys: [] };
  let kek: CryptoKey | null = null;
  if ('passphrase' in to) {
    if (typeof to.passphrase !== 'string' || to.passphrase.length === 0) throw ENCRYPTION_ERRORS.encryptionPassphrase('exportScope needs a non-empty passphrase for the recipient.');
    const salt = randomBytes(16);
    kek = await deriveKek(to.passphrase, salt, PBKDF2_ITERATIONS);
    bundle.kdf = { name: 'PBKDF2', hash: 'SHA-256', iterations: PBKDF2_ITERATIONS, salt: toBase64(salt) };
  } else {
    bundle.method = 'rsa-oaep';
  }
  for (const kid of entry.kids) {
    const key = await keyring.extractable(scope, kid);
    if (kek) {
      const { iv, wrapped } = await wrapKey(key, kek, bundleLabel(scope, kid));
      bundle.keys.push({ kid, iv, wrapped });
    } else {
      bundle.keys.push({ kid, wrapped: await wrapForPublicKey(key, (to as { publicKey: CryptoKey }).publicKey) });
    }
  }
  return bundle;
}

/** Adds the bundle's scope and keys to this keyring (wrapped under this stack's own key). */
export async function importScope(keyring: Keyring, bundle: ScopeBundle, opener: Opener): Promise<string> {
  if (bundle?.format !== 'docstack-scope-keys' || bundle.version !== 1 || !Array.isArray(bundle.keys) || bundle.keys.length === 0) {
    throw ENCRYPTION_ERRORS.encryptionKeyring('This is not a docstack scope key bundle.');
  }
  checkScopeName(bundle.scope);
  const keys: { kid: string; key: CryptoKey }[] = [];
  try {
    if (bundle.method === 'passphrase') {
      if (!('passphrase' in opener) || !bundle.kdf) throw new Error('passphrase needed');
      const kek = await deriveKek(opener.passphrase, fromBase64(bundle.kdf.salt), bundle.kdf.iterations);
      for (const k of bundle.keys) keys.push({ kid: k.kid, key: await unwrapKey({ iv: k.iv!, wrapped: k.wrapped }, kek, bundleLabel(bundle.scope, k.kid), ['encrypt', 'decrypt'], true) });
    } else {
      if (!('privateKey' in opener)) throw new Error('private key needed');
      for (const k of bundle.keys) keys.push({ kid: k.kid, key: await unwrapWithPrivateKey(k.wrapped, opener.privateKey, ['encrypt', 'decrypt'], true) });
    }
  } catch {
    throw ENCRYPTION_ERRORS.encryptionPassphrase(`The bundle of the scope "${bundle.scope}" does not open with what was given.`);
  }
  await keyring.update(async (doc) => {
    for (const { kid, key } of keys) {
      if (doc.scopes[bundle.scope]?.keys[kid]) continue;
      await keyring.addScopeKey(doc, bundle.scope, key, kid, kid === bundle.current);
    }
  });
  return bundle.scope;
}
