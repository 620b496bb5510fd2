import { deriveKekFrom, fromBase64, generateDataKey, generateWrappingKey, newKid, passphraseKey, PBKDF2_ITERATIONS, randomBytes, toBase64, unwrapKey, wrapKey, type Wrapped } from './crypto.js';
import { KEYRING_CLASS, LEGACY_KEYRING_ID, newKeyringId, primaryOrder, readKeyrings, type KeyringDoc, type ScopeEntry, type StoredKeyring } from './keyring-docs.js';
import { mergeIntoPrimary, STACK_KEY_LABEL, scopeKeyLabel } from './keyring-merge.js';
import { Class, type ClientStack, DocstackError } from '../../index.js';
import { ENCRYPTION_ERRORS } from './errors.js';

export { KEYRING_CLASS, type KeyringDoc, type ScopeEntry } from './keyring-docs.js';
export const DEFAULT_SCOPE = 'default';
const SCOPE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The keys of a user: one random AES-256 key per access scope (plus older ones after a
 * rotation), wrapped by a stack key, itself wrapped by a key derived from the passphrase
 * (PBKDF2-SHA256, 600,000 iterations, per-keyring salt). Keyring documents (`~Keyring-<random>`)
 * replicate with the data, so another device of the same user opens them with the passphrase;
 * a node stores them for their owner only and never holds a key. Two keyrings of one user (two
 * devices that each made one before their first sync) and conflicting revisions of one are
 * merged into the primary (the smallest id the passphrase opens): no key is ever dropped.
 * Unwrapped keys live in memory only, from unlock() to lock().
 */
export class Keyring {
  /** the passphrase as a non-extractable PBKDF2 key, to open keyrings that arrive later */
  private base: CryptoKey | null = null;
  /** key-encryption keys derived from `base`, by salt and iterations */
  private readonly keks = new Map<string, CryptoKey>();
  /** keyring id → its stack key */
  private readonly stackKeys = new Map<string, CryptoKey>();
  private primary: string | null = null;
  /** the primary's scopes after the last merge */
  private view: Record<string, ScopeEntry> = {};
  /** `${scope}/${kid}` → usable key */
  private readonly keys = new Map<string, CryptoKey>();
  /** `${scope}/${kid}` → a wrap of it and the key that opens it (for an extractable copy) */
  private readonly sources = new Map<string, { wrapped: Wrapped; stackKey: CryptoKey }>();
  /** scope names of the stored keyrings, for a locked stack's checks (re-read on a miss) */
  private names: Set<string> | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** bumped by lock(): a merge that started before gives up instead of holding keys again */
  private epoch = 0;

  constructor(private readonly stack: ClientStack) {}

  get unlocked(): boolean {
    return this.primary !== null;
  }

  /** The id of the keyring new keys go to (null when locked). */
  get id(): string | null {
    return this.primary;
  }

  /** Makes sure the keyring's (simple) class exists: called when the stack opens. */
  async ensureClass(): Promise<void> {
    await Class.ensure(this.stack, KEYRING_CLASS, 'The wrapped keys of the encryption plugin (keyring documents of the users).', {}, { simple: true });
  }

  /** A keyring document changed (a pull, another writer): forget what was cached, merge it when unlocked. */
  changed(): Promise<void> {
    this.names = null;
    return this.unlocked ? this.reconcile() : Promise.resolve();
  }

  /** Does some keyring know this scope (keys or not)? Reads the stored keyrings once more on a miss. */
  async knowsScope(scope: string): Promise<boolean> {
    if (this.view[scope] || this.names?.has(scope)) return true;
    if (this.unlocked) await this.reconcile();
    return !!this.view[scope] || (await this.scopeNames()).has(scope);
  }

  private async scopeNames(): Promise<Set<string>> {
    const names = new Set<string>();
    for (const k of await readKeyrings(this.stack)) for (const leaf of k.leaves) for (const name of Object.keys(leaf.scopes)) names.add(name);
    this.names = names;
    return names;
  }

  /**
   * Opens every keyring the passphrase opens; the first unlock of a store that holds none
   * creates one (with the `default` scope). A passphrase that opens none of the keyrings
   * stored is DS_ENCRYPTION_PASSPHRASE and leaves the stack locked.
   */
  async unlock(passphrase: string): Promise<void> {
    if (typeof passphrase !== 'string' || passphrase.length === 0) {
      throw ENCRYPTION_ERRORS.encryptionPassphrase('unlock needs a non-empty passphrase.');
    }
    this.lock();
    const base = await passphraseKey(passphrase);
    await this.serial(async () => {
      const keyrings = await readKeyrings(this.stack);
      this.base = base;
      try {
        if (keyrings.length === 0) return await this.create();
        await this.reconcileNow();
        if (!this.primary) throw ENCRYPTION_ERRORS.encryptionPassphrase('The passphrase does not open any keyring of this database.');
      } catch (err) {
        this.lock();
        throw err;
      }
    });
  }

  lock(): void {
    this.epoch += 1;
    this.base = null;
    this.keks.clear();
    this.stackKeys.clear();
    this.primary = null;
    this.view = {};
    this.keys.clear();
    this.sources.clear();
  }

  /** Runs one keyring change at a time (merges, updates, passphrase changes). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Merges what the stored keyrings hold into the primary (see mergeIntoPrimary). */
  reconcile(): Promise<void> {
    return this.serial(() => this.reconcileNow());
  }

  private async reconcileNow(attempt = 0): Promise<void> {
    if (!this.base) return;
    const epoch = this.epoch;
    const keyrings = primaryOrder(await readKeyrings(this.stack));
    let primary: StoredKeyring | undefined;
    const others: StoredKeyring[] = [];
    for (const k of keyrings) {
      // one the primary holds already at these revisions: no need to derive its passphrase key
      if (primary && !this.stackKeys.has(k.id) && primary.leaves.some((l) => l.merged?.[k.id] === k.signature)) continue;
      if (!(await this.open(k, epoch))) continue;
      await this.loadKeys(k, epoch);
      if (!primary && k.id !== LEGACY_KEYRING_ID) primary = k;
      else others.push(k);
    }
    if (epoch !== this.epoch) return; // locked meanwhile
    if (!primary) {
      const legacy = others.find((k) => k.id === LEGACY_KEYRING_ID);
      if (!legacy || attempt > 3) return;
      // a keyring made before keyrings travelled: the same stack key under a random id, then merged
      const copy = await this.write({ kdf: legacy.leaves[0].kdf, stackKey: legacy.leaves[0].stackKey, scopes: {} });
      this.stackKeys.set(copy, this.stackKeys.get(LEGACY_KEYRING_ID)!);
      return this.reconcileNow(attempt + 1);
    }
    const stackKey = this.stackKeys.get(primary.id)!;
    const merged = await mergeIntoPrimary(primary, stackKey, others, (scope, kid) => this.copyOf(scope, kid));
    if (merged.changes) {
      try {
        await this.stack.updateDoc(primary.id, { ...merged.changes, _rev: primary.leaves[0]._rev }, { origin: 'system' });
      } catch (err) {
        if ((err as DocstackError).code !== 'DS_DOC_CONFLICT' || attempt > 3) throw err;
        return this.reconcileNow(attempt + 1);
      }
    }
    // the losing revisions' keys are in the winner now: a conflict no longer
    for (const leaf of primary.leaves.slice(1)) await this.stack.storage.remove(primary.id, String(leaf._rev)).catch(() => undefined);
    if (epoch !== this.epoch) return;
    this.primary = primary.id;
    this.view = merged.scopes;
  }

  /** Holds the keyring's stack key when the passphrase opens one of its revisions. */
  private async open(k: StoredKeyring, epoch: number): Promise<boolean> {
    if (this.stackKeys.has(k.id)) return true;
    for (const leaf of k.leaves) {
      if (epoch !== this.epoch) return false;
      const key = await this.openStackKey(leaf, this.base!);
      if (key && epoch === this.epoch) {
        this.stackKeys.set(k.id, key);
        return true;
      }
    }
    return false;
  }

  private async openStackKey(leaf: KeyringDoc, base: CryptoKey, extractable = false): Promise<CryptoKey | null> {
    const slot = `${leaf.kdf.iterations}|${leaf.kdf.salt}`;
    let kek = base === this.base ? this.keks.get(slot) : undefined;
    if (!kek) {
      kek = await deriveKekFrom(base, fromBase64(leaf.kdf.salt), leaf.kdf.iterations);
      if (base === this.base) this.keks.set(slot, kek);
    }
    try {
      return await unwrapKey(leaf.stackKey, kek, STACK_KEY_LABEL, ['wrapKey', 'unwrapKey'], extractable);
    } catch {
      return null;
    }
  }

  /** Unwraps every scope key of every revision of an opened keyring that is not held yet. */
  private async loadKeys(k: StoredKeyring, epoch: number): Promise<void> {
    const stackKey = this.stackKeys.get(k.id);
    if (!stackKey) return;
    for (const leaf of k.leaves) {
      for (const [scope, entry] of Object.entries(leaf.scopes)) {
        for (const [kid, wrapped] of Object.entries(entry.keys)) {
          const slot = `${scope}/${kid}`;
          if (this.keys.has(slot)) continue;
          try {
            const key = await unwrapKey(wrapped, stackKey, scopeKeyLabel(scope, kid), ['encrypt', 'decrypt']);
            if (epoch !== this.epoch) return;
            this.keys.set(slot, key);
            this.sources.set(slot, { wrapped, stackKey });
          } catch {
            throw ENCRYPTION_ERRORS.encryptionKeyring(`The key ${kid} of the scope "${scope}" does not open with its keyring's stack key: the keyring ${k.id} is damaged.`);
          }
        }
      }
    }
  }

  /** A new keyring: a random id and stack key, a fresh salt; the `default` scope when `scopes` is not given. */
  private async create(): Promise<void> {
    const salt = randomBytes(16);
    const kek = await deriveKekFrom(this.base!, salt, PBKDF2_ITERATIONS);
    const stackKey = await generateWrappingKey();
    const kdf = { name: 'PBKDF2' as const, hash: 'SHA-256' as const, iterations: PBKDF2_ITERATIONS, salt: toBase64(salt) };
    const id = newKeyringId(newKid() + newKid());
    this.stackKeys.set(id, stackKey);
    const doc = { _id: id, scopes: {} } as unknown as KeyringDoc;
    await this.addScopeKey(doc, DEFAULT_SCOPE, await generateDataKey());
    await this.write({ kdf, stackKey: await wrapKey(stackKey, kek, STACK_KEY_LABEL), scopes: doc.scopes }, id);
    this.primary = id;
    this.view = doc.scopes;
  }

  private async write(fields: Pick<KeyringDoc, 'kdf' | 'stackKey' | 'scopes'>, id = newKeyringId(newKid() + newKid())): Promise<string> {
    await this.stack.createDoc({ _id: id, '~class': KEYRING_CLASS, version: 1, ...fields } as never, { origin: 'system' });
    this.names = null;
    return id;
  }

  private requireUnlocked(): string {
    if (!this.primary) throw ENCRYPTION_ERRORS.encryptionLocked('The stack is locked: unlock it with its passphrase first.');
    return this.primary;
  }

  /** The key sealing values of a scope now, with its kid; DS_ENCRYPTION_LOCKED when not held. */
  async currentKey(scope: string): Promise<{ kid: string; key: CryptoKey }> {
    if (!this.unlocked) throw ENCRYPTION_ERRORS.encryptionLocked(`Sealing a value of the scope "${scope}" needs its key: unlock the stack first.`, { path: '~scope' });
    if (!this.view[scope] || !this.keys.has(`${scope}/${this.view[scope].current}`)) await this.reconcile();
    const entry = this.view[scope];
    if (!entry) throw ENCRYPTION_ERRORS.encryptionScopeUnknown(`The keyring has no scope "${scope}".`, { path: '~scope' });
    const key = this.keys.get(`${scope}/${entry.current}`);
    if (!key) throw ENCRYPTION_ERRORS.encryptionLocked(`The key of the scope "${scope}" is not held: unlock the stack first.`, { path: '~scope' });
    return { kid: entry.current, key };
  }

  /** A key by kid, or null when it is not held (locked, or a scope this stack was never given). */
  async keyFor(scope: string, kid: string): Promise<CryptoKey | null> {
    const held = this.keys.get(`${scope}/${kid}`);
    if (held || !this.unlocked) return held ?? null;
    await this.reconcile(); // a key another device added since we unlocked
    return this.keys.get(`${scope}/${kid}`) ?? null;
  }

  /** Adds a scope with a fresh random key. */
  async createScope(name: string): Promise<void> {
    checkScopeName(name);
    await this.update(async (doc) => {
      if (doc.scopes[name]) throw ENCRYPTION_ERRORS.encryptionScopeExists(`The keyring already has a scope "${name}".`, { path: 'name' });
      await this.addScopeKey(doc, name, await generateDataKey());
    });
  }

  /** Scope names of the keyring (every keyring stored, when locked). */
  async scopes(): Promise<string[]> {
    if (this.unlocked) {
      await this.reconcile();
      return Object.keys(this.view).sort();
    }
    return [...(await this.scopeNames())].sort();
  }

  /** A scope of the unlocked keyring: its current kid and every kid it has. */
  async scopeEntry(scope: string): Promise<{ current: string; kids: string[] } | null> {
    this.requireUnlocked();
    await this.reconcile();
    const entry = this.view[scope];
    return entry ? { current: entry.current, kids: Object.keys(entry.keys) } : null;
  }

  /**
   * Wraps `key` (extractable) under the stack key of `doc` into the scope (creating the scope
   * if needed) and makes it the scope's current key. Used by createScope, importScope and rotation.
   */
  async addScopeKey(doc: KeyringDoc, scope: string, key: CryptoKey, kid = newKid(), makeCurrent = true): Promise<string> {
    const stackKey = this.stackKeys.get(doc._id);
    if (!stackKey) throw ENCRYPTION_ERRORS.encryptionLocked('The stack is locked: unlock it with its passphrase first.');
    const wrapped = await wrapKey(key, stackKey, scopeKeyLabel(scope, kid));
    const entry = doc.scopes[scope] ?? { current: kid, keys: {} };
    entry.keys[kid] = { ...wrapped, createdAt: new Date(this.stack.clock.now()).toISOString() };
    if (makeCurrent) entry.current = kid;
    doc.scopes[scope] = entry;
    this.keys.set(`${scope}/${kid}`, await unwrapKey(wrapped, stackKey, scopeKeyLabel(scope, kid), ['encrypt', 'decrypt']));
    this.sources.set(`${scope}/${kid}`, { wrapped, stackKey });
    return kid;
  }

  /** An extractable copy of a held scope key, to wrap it for someone else (export) or another keyring (merge). */
  async extractable(scope: string, kid: string): Promise<CryptoKey> {
    this.requireUnlocked();
    return this.copyOf(scope, kid);
  }

  private copyOf(scope: string, kid: string): Promise<CryptoKey> {
    const source = this.sources.get(`${scope}/${kid}`);
    if (!source) throw ENCRYPTION_ERRORS.encryptionScopeUnknown(`The keyring has no key ${kid} in the scope "${scope}".`);
    return unwrapKey(source.wrapped, source.stackKey, scopeKeyLabel(scope, kid), ['encrypt', 'decrypt'], true);
  }

  /** Read-modify-write of the primary keyring, after a merge; retried when another writer changed it meanwhile. */
  async update(change: (doc: KeyringDoc) => Promise<void>): Promise<void> {
    this.requireUnlocked();
    await this.serial(async () => {
      for (let attempt = 0; ; attempt++) {
        await this.reconcileNow();
        const id = this.requireUnlocked();
        const stored = await this.stack.storage.get<KeyringDoc>(id);
        if (!stored) throw ENCRYPTION_ERRORS.encryptionKeyring(`The keyring ${id} is gone.`);
        const doc = structuredClone(stored);
        await change(doc);
        try {
          await this.stack.updateDoc(id, { scopes: doc.scopes, _rev: doc._rev }, { origin: 'system' });
          this.view = doc.scopes;
          this.names = null;
          return;
        } catch (err) {
          if ((err as DocstackError).code !== 'DS_DOC_CONFLICT' || attempt >= 4) throw err;
        }
      }
    });
  }

  /**
   * Rewraps the stack key of every keyring `current` opens under `next` (a fresh salt): the
   * scope keys stay, so nothing sealed changes. Other devices open the rewrapped keyring with
   * `next` once it has replicated; one still unlocked keeps working until it locks.
   */
  async changePassphrase(current: string, next: string): Promise<void> {
    this.requireUnlocked();
    if (typeof next !== 'string' || next.length === 0) throw ENCRYPTION_ERRORS.encryptionPassphrase('changePassphrase needs a non-empty new passphrase.');
    const [oldBase, newBase] = await Promise.all([passphraseKey(current), passphraseKey(next)]);
    await this.serial(async () => {
      await this.reconcileNow();
      const salt = randomBytes(16);
      const kek = await deriveKekFrom(newBase, salt, PBKDF2_ITERATIONS);
      const kdf = { name: 'PBKDF2' as const, hash: 'SHA-256' as const, iterations: PBKDF2_ITERATIONS, salt: toBase64(salt) };
      const rewrapped: Array<{ id: string; rev: string; stackKey: Wrapped }> = [];
      for (const k of await readKeyrings(this.stack)) {
        if (!this.stackKeys.has(k.id) || k.id === LEGACY_KEYRING_ID) continue;
        const stackKey = await this.openStackKey(k.leaves[0], oldBase, true);
        if (stackKey) rewrapped.push({ id: k.id, rev: String(k.leaves[0]._rev), stackKey: await wrapKey(stackKey, kek, STACK_KEY_LABEL) });
      }
      if (!rewrapped.some((r) => r.id === this.primary)) throw ENCRYPTION_ERRORS.encryptionPassphrase('The current passphrase does not open this keyring.');
      const at = new Date(this.stack.clock.now()).toISOString();
      for (const r of rewrapped) await this.stack.updateDoc(r.id, { kdf, stackKey: r.stackKey, passphraseChangedAt: at, _rev: r.rev }, { origin: 'system' });
      this.base = newBase;
      this.keks.clear();
    });
    await this.reconcile(); // keyrings `next` opens and `current` did not
  }
}

export function checkScopeName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !SCOPE_NAME.test(name)) {
    throw ENCRYPTION_ERRORS.encryptionKeyring(`A scope name is 1–64 letters, digits, "_", "." or "-" (got ${JSON.stringify(name)}).`, { path: 'name' });
  }
}
