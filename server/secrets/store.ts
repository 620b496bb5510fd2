import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { ClientStack } from '../../index.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/** The engine-internal class of the secrets (server-private: never replicated, see visibility.ts). */
export const SECRET_CLASS = '~Secret';
/** Container key: `stack.container.resolve(SECRETS)` gives a job or a delivery the SecretReader. */
export const SECRETS = 'secrets';

/** What server code reads secrets through (the container's `secrets`): values, never listed with them. */
export interface SecretReader {
  /** The secret's value, or null when there is none by that name. */
  get(name: string): Promise<string | null>;
}

interface SecretDoc {
  _id: string;
  _rev?: string;
  '~class': typeof SECRET_CLASS;
  name: string;
  /** AES-256-GCM: iv, ciphertext and tag, base64; the id is the additional data */
  iv: string;
  ct: string;
  tag: string;
  updatedAt: string;
}

/** An admin's name for a secret; names starting with `~` are the node's own (webhook signing secrets). */
export const SECRET_NAME = /^~?[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/**
 * The key that seals the secrets: derived (HKDF-SHA-256) from the node's JWT private key, which is
 * itself encrypted at rest under ENCRYPTION_PASSPHRASE (server/keys.ts). The store's files alone
 * open nothing; a node started with another key cannot read secrets sealed under the old one
 * (DS_SECRET_UNREADABLE: set them again).
 */
export function secretsKey(privateKey: KeyObject): KeyObject {
  const material = new Uint8Array(privateKey.export({ type: 'pkcs8', format: 'der' }));
  return createSecretKey(new Uint8Array(hkdfSync('sha256', material, 'docstack', 'docstack server secrets v1', 32)));
}

const idOf = (name: string) => `${SECRET_CLASS}-${name}`;
/** node:crypto's typings here take plain Uint8Arrays, not Buffers: copy into one. */
const u8 = (b: string | ArrayLike<number>, encoding?: BufferEncoding): Uint8Array =>
  new Uint8Array(typeof b === 'string' ? (Buffer.from(b, encoding) as unknown as ArrayLike<number>) : b);
const b64 = (parts: ArrayLike<number>[]): string => Buffer.from(Uint8Array.from(parts.flatMap((p) => Array.from(p)))).toString('base64');

/**
 * Integration secrets on the node (API keys for outbound calls, webhook signing secrets):
 * encrypted at rest, set and removed by admins, read by server code only. No route returns a
 * value; nothing here logs one.
 */
export class SecretStore implements SecretReader {
  constructor(
    private readonly stack: ClientStack,
    private readonly key: KeyObject,
  ) {}

  static checkName(name: unknown): string {
    if (typeof name !== 'string' || !SECRET_NAME.test(name)) {
      throw SERVER_ERRORS.secretInvalid('A secret name is 1 to 100 letters, digits, "_", ".", ":" or "-", starting with a letter or digit.', { path: 'name' });
    }
    return name;
  }

  async set(name: string, value: unknown): Promise<{ name: string; updatedAt: string }> {
    SecretStore.checkName(name);
    if (typeof value !== 'string' || value === '' || value.length > 16_384) {
      throw SERVER_ERRORS.secretInvalid('A secret value is text of 1 to 16,384 characters.', { path: 'value' });
    }
    const id = idOf(name);
    const iv = u8(randomBytes(12));
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(u8(id));
    const ct = b64([u8(cipher.update(value, 'utf8')), u8(cipher.final())]);
    const updatedAt = new Date(this.stack.clock.now()).toISOString();
    const previous = await this.stack.storage.get<SecretDoc>(id);
    const doc: SecretDoc = {
      _id: id,
      ...(previous?._rev ? { _rev: previous._rev } : {}),
      '~class': SECRET_CLASS,
      name,
      iv: b64([iv]),
      ct,
      tag: b64([u8(cipher.getAuthTag())]),
      updatedAt,
    };
    await this.stack.storage.put(doc);
    return { name, updatedAt };
  }

  async get(name: string): Promise<string | null> {
    if (typeof name !== 'string' || !SECRET_NAME.test(name)) return null;
    const doc = await this.stack.storage.get<SecretDoc>(idOf(name));
    if (!doc) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, u8(doc.iv, 'base64'));
      decipher.setAAD(u8(doc._id));
      decipher.setAuthTag(u8(doc.tag, 'base64'));
      return decipher.update(u8(doc.ct, 'base64'), undefined, 'utf8') + decipher.final('utf8');
    } catch {
      throw SERVER_ERRORS.secretUnreadable(`The secret ${JSON.stringify(name)} does not open with this node's key (was the JWT key replaced?); set it again.`, { path: name });
    }
  }

  /** Names and dates, never values. Secrets of the node's own (`~…`) are left out. */
  async list(): Promise<Array<{ name: string; updatedAt: string }>> {
    const rows = await this.stack.storage.range({ prefix: `${SECRET_CLASS}-`, includeDocs: true });
    return rows.map((r) => r.doc as unknown as SecretDoc).filter((d) => !d.name.startsWith('~')).map((d) => ({ name: d.name, updatedAt: d.updatedAt }));
  }

  async remove(name: string): Promise<boolean> {
    SecretStore.checkName(name);
    const doc = await this.stack.storage.get<SecretDoc>(idOf(name));
    if (!doc?._rev) return false;
    await this.stack.storage.remove(doc._id, doc._rev);
    return true;
  }
}
