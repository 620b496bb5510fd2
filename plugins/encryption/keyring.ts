import { DocstackError } from '../../kernel/errors.js';
import { Class } from '../../kernel/model/class.js';
import type { Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';
import {
  deriveKek,
  fromBase64,
  generateDataKey,
  generateWrappingKey,
  newKid,
  PBKDF2_ITERATIONS,
  randomBytes,
  toBase64,
  unwrapKey,
  wrapKey,
  type Wrapped,
} from './crypto.js';

export const KEYRING_CLASS = '~Keyring';
/** One keyring per database: every replica of the database shares (and replicates) it. */
export const KEYRING_ID = '~Keyring-main';
export const DEFAULT_SCOPE = 'default';
const SCOPE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const STACK_KEY_LABEL = 'docstack:stack-key';
const scopeKeyLabel = (scope: string, kid: string) => `docstack:scope-key|${scope}|${kid}`;

export interface ScopeEntry {
  /** the kid new values are sealed with */
  current: string;
  /** every key the scope ever had, by kid, wrapped by the stack key: old ones still open old values */
  keys: Record<string, Wrapped & { createdAt: string }>;
}

/** The keyring document. Only wrapped keys: nothing here opens anything without the passphrase. */
export interface KeyringDoc extends Doc {
  version: 1;
  kdf: { name: 'PBKDF2'; hash: 'SHA-256'; iterations: number; salt: string };
  stackKey: Wrapped;
  scopes: Record<string, ScopeEntry>;
}

/**
 * The keys of a stack: one random AES-256 key per access scope (plus older ones after a
 * rotation), wrapped by a stack key, itself wrapped by a key derived from the passphrase
 * (PBKDF2-SHA256, 600,000 iterations, per-database salt). The keyring document replicates, so
 * a second device with the passphrase unlocks the same keys. Unwrapped keys live in memory
 * only, from unlock() to lock().
 */
export class Keyring {
  private stackKey: CryptoKey | null = null;
  /** `${scope}/${kid}` → usable key */
  private readonly keys = new Map<string, CryptoKey>();
  private cached: KeyringDoc | null = null;

  constructor(private readonly stack: ClientStack) {}

  get unlocked(): boolean {
    return this.stackKey !== null;
  }

  /** Makes sure the keyring's (simple) class exists: called when the stack opens. */
  async ensureClass(): Promise<void> {
    await Class.ensure(this.stack, KEYRING_CLASS, 'The wrapped keys of the encryption plugin (one document per database).', {}, { simple: true });
  }

  /** The stored keyring, or null before the first unlock of this database. */
  async read(fresh = false): Promise<KeyringDoc | null> {
    if (!fresh && this.cached) return this.cached;
    this.cached = await this.stack.storage.get<KeyringDoc>(KEYRING_ID);
    return this.cached;
  }

  /** Does the keyring know this scope (keys or not)? Reads the stored keyring once more on a miss. */
  async knowsScope(scope: string): Promise<boolean> {
    if ((await this.read())?.scopes[scope]) return true;
    return !!(await this.read(true))?.scopes[scope];
  }

  /**
   * Opens the keyring with the passphrase; the first unlock of a database creates it (with the
   * `default` scope). A wrong passphrase is DS_ENCRYPTION_PASSPHRASE and leaves the stack locked.
   */
  async unlock(passphrase: string): Promise<void> {
    if (typeof passphrase !== 'string' || passphrase.length === 0) {
      throw new DocstackError('DS_ENCRYPTION_PASSPHRASE', 'unlock needs a non-empty passphrase.');
    }
    const doc = await this.read(true);
    if (!doc) return this.create(passphrase);
    const kek = await deriveKek(passphrase, fromBase64(doc.kdf.salt), doc.kdf.iterations);
    let stackKey: CryptoKey;
    try {
      stackKey = await unwrapKey(doc.stackKey, kek, STACK_KEY_LABEL, ['wrapKey', 'unwrapKey']);
    } catch {
      throw new DocstackError('DS_ENCRYPTION_PASSPHRASE', 'The passphrase does not open this keyring.');
    }
    this.stackKey = stackKey;
    this.keys.clear();
    await this.loadKeys(doc);
  }

  lock(): void {
    this.stackKey = null;
    this.keys.clear();
  }

  private async create(passphrase: string): Promise<void> {
    const salt = randomBytes(16);
    const kek = await deriveKek(passphrase, salt, PBKDF2_ITERATIONS);
    const stackKey = await generateWrappingKey();
    const doc = {
      _id: KEYRING_ID,
      '~class': KEYRING_CLASS,
      version: 1,
      kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations: PBKDF2_ITERATIONS, salt: toBase64(salt) },
      stackKey: await wrapKey(stackKey, kek, STACK_KEY_LABEL),
      scopes: {},
    } as unknown as KeyringDoc;
    this.stackKey = stackKey;
    await this.addScopeKey(doc, DEFAULT_SCOPE, await generateDataKey());
    try {
      await this.stack.createDoc(doc as never, { origin: 'system' });
    } catch (err) {
      this.lock();
      // another writer created the keyring first: open theirs instead
      if ((err as DocstackError).code === 'DS_DOC_EXISTS') return this.unlock(passphrase);
      throw err;
    }
    this.cached = null;
  }

  private requireUnlocked(): CryptoKey {
    if (!this.stackKey) throw new DocstackError('DS_ENCRYPTION_LOCKED', 'The stack is locked: unlock it with its passphrase first.');
    return this.stackKey;
  }

  /** Unwraps every scope key of the keyring this stack does not hold yet. */
  private async loadKeys(doc: KeyringDoc): Promise<void> {
    const stackKey = this.requireUnlocked();
    for (const [scope, entry] of Object.entries(doc.scopes)) {
      for (const [kid, wrapped] of Object.entries(entry.keys)) {
        if (this.keys.has(`${scope}/${kid}`)) continue;
        try {
          this.keys.set(`${scope}/${kid}`, await unwrapKey(wrapped, stackKey, scopeKeyLabel(scope, kid), ['encrypt', 'decrypt']));
        } catch {
          throw new DocstackError('DS_ENCRYPTION_KEYRING', `The key ${kid} of the scope "${scope}" does not open with this stack key: the keyring is damaged.`);
        }
      }
    }
  }

  /** The key sealing values of a scope now, with its kid; DS_ENCRYPTION_LOCKED when not held. */
  async currentKey(scope: string): Promise<{ kid: string; key: CryptoKey }> {
    if (!this.unlocked) throw new DocstackError('DS_ENCRYPTION_LOCKED', `Sealing a value of the scope "${scope}" needs its key: unlock the stack first.`, { path: '~scope' });
    let entry = (await this.read())?.scopes[scope];
    if (!entry || !this.keys.has(`${scope}/${entry.current}`)) entry = await this.refresh(scope);
    if (!entry) throw new DocstackError('DS_ENCRYPTION_SCOPE_UNKNOWN', `The keyring has no scope "${scope}".`, { path: '~scope' });
    const key = this.keys.get(`${scope}/${entry.current}`);
    if (!key) throw new DocstackError('DS_ENCRYPTION_LOCKED', `The key of the scope "${scope}" is not held: unlock the stack first.`, { path: '~scope' });
    return { kid: entry.current, key };
  }

  /** A key by kid, or null when it is not held (locked, or a scope this stack was never given). */
  async keyFor(scope: string, kid: string): Promise<CryptoKey | null> {
    const held = this.keys.get(`${scope}/${kid}`);
    if (held || !this.unlocked) return held ?? null;
    await this.refresh(scope); // a key another device added since we unlocked
    return this.keys.get(`${scope}/${kid}`) ?? null;
  }

  private async refresh(scope: string): Promise<ScopeEntry | undefined> {
    const doc = await this.read(true);
    if (doc && this.unlocked) await this.loadKeys(doc);
    return doc?.scopes[scope];
  }

  /** Adds a scope with a fresh random key. */
  async createScope(name: string): Promise<void> {
    checkScopeName(name);
    await this.update(async (doc) => {
      if (doc.scopes[name]) throw new DocstackError('DS_ENCRYPTION_SCOPE_EXISTS', `The keyring already has a scope "${name}".`, { path: 'name' });
      await this.addScopeKey(doc, name, await generateDataKey());
    });
  }

  /** Scope names of the keyring. */
  async scopes(): Promise<string[]> {
    return Object.keys((await this.read(true))?.scopes ?? {}).sort();
  }

  /**
   * Wraps `key` under the stack key into the scope (creating the scope if needed) and makes it
   * the scope's current key. Used by createScope, importScope and rotation.
   */
  async addScopeKey(doc: KeyringDoc, scope: string, key: CryptoKey, kid = newKid(), makeCurrent = true): Promise<string> {
    const stackKey = this.requireUnlocked();
    const wrapped = await wrapKey(key, stackKey, scopeKeyLabel(scope, kid));
    const entry = doc.scopes[scope] ?? { current: kid, keys: {} };
    entry.keys[kid] = { ...wrapped, createdAt: new Date(this.stack.clock.now()).toISOString() };
    if (makeCurrent) entry.current = kid;
    doc.scopes[scope] = entry;
    this.keys.set(`${scope}/${kid}`, await unwrapKey(wrapped, stackKey, scopeKeyLabel(scope, kid), ['encrypt', 'decrypt']));
    return kid;
  }

  /** An extractable copy of a scope key, to wrap it for someone else (export). */
  async extractable(scope: string, kid: string): Promise<CryptoKey> {
    const stackKey = this.requireUnlocked();
    const wrapped = (await this.read(true))?.scopes[scope]?.keys[kid];
    if (!wrapped) throw new DocstackError('DS_ENCRYPTION_SCOPE_UNKNOWN', `The keyring has no key ${kid} in the scope "${scope}".`);
    return unwrapKey(wrapped, stackKey, scopeKeyLabel(scope, kid), ['encrypt', 'decrypt'], true);
  }

  /** Read-modify-write of the keyring document, retried when another writer changed it meanwhile. */
  async update(change: (doc: KeyringDoc) => Promise<void>): Promise<void> {
    this.requireUnlocked();
    for (let attempt = 0; ; attempt++) {
      const doc = structuredClone(await this.read(true));
      if (!doc) throw new DocstackError('DS_ENCRYPTION_KEYRING', 'There is no keyring yet: unlock the stack first.');
      await change(doc);
      try {
        const { _id, _rev, '~class': _c, '~createTimestamp': _t, active: _a, '~updateTimestamp': _u, ...fields } = doc;
        await this.stack.updateDoc(KEYRING_ID, { ...fields, _rev }, { origin: 'system' });
        this.cached = null;
        return;
      } catch (err) {
        if ((err as DocstackError).code !== 'DS_DOC_CONFLICT' || attempt >= 4) throw err;
      }
    }
  }
}

export function checkScopeName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !SCOPE_NAME.test(name)) {
    throw new DocstackError('DS_ENCRYPTION_KEYRING', `A scope name is 1–64 letters, digits, "_", "." or "-" (got ${JSON.stringify(name)}).`, { path: 'name' });
  }
}
