import { isEncrypted } from './encrypted-key.js';
import { isSealed, isSealedMarker, type SealedMarker, type SealedValue } from './sealed.js';
import { decryptText, encryptJson, randomIvs } from './crypto.js';
import { DEFAULT_SCOPE, type Keyring } from './keyring.js';
import { type AttributeModel, type ClassModel, type Doc, type WriteContext } from '../../index.js';
import { ENCRYPTION_ERRORS } from './errors.js';

const encryptedOf = new WeakMap<ClassModel, AttributeModel[]>();

export function encryptedAttributes(model: ClassModel): AttributeModel[] {
  let list = encryptedOf.get(model);
  if (!list) {
    list = Object.values(model.schema).filter(isEncrypted);
    encryptedOf.set(model, list);
  }
  return list;
}

/** The access scope of a document: its `~scope`, else its class's defaultScope, else `default`. */
export function scopeOf(doc: Doc, model: ClassModel): string {
  return (typeof doc['~scope'] === 'string' && doc['~scope']) || model.defaultScope || DEFAULT_SCOPE;
}

/** What the GCM tag binds a value to: moved to another document or attribute, it fails to open. */
const labelOf = (docId: string, className: string, attribute: string) => `docstack:v1|${docId}|${className}|${attribute}`;

const SCRATCH = 'encryption:opened';

/** Per write call: the stored payloads an update opened, so unchanged values keep their ciphertext. */
function opened(ctx: WriteContext): Map<string, { payload: SealedValue; json: string }> {
  let map = ctx.batch.scratch.get(SCRATCH) as Map<string, { payload: SealedValue; json: string }> | undefined;
  if (!map) {
    map = new Map();
    ctx.batch.scratch.set(SCRATCH, map);
  }
  return map;
}

/**
 * A bounded memory of decrypted values, keyed by what sealed them (document, class, attribute)
 * and by the payload itself: reading the same document again does not decrypt it again, and a
 * payload copied elsewhere never hits the cache (its label differs). Cleared on lock().
 */
export class PlainCache {
  /**
   * Keyed by the ciphertext itself (a string the payload already holds: no key is built per
   * value); an entry counts only for the same label, kid and IV. A value is kept as its JSON (the
   * text sealed or decrypted): a read parses a fresh copy, no structured clone.
   */
  private readonly entries = new Map<string, { label: string; kid: string; iv: string; json: string }>();
  constructor(private readonly max = 10_000) {}
  /** A fresh copy of the remembered value: the caller may change it. */
  get(payload: SealedValue, label: string): { value: unknown } | undefined {
    // the whole ciphertext is the key: an altered one misses and fails to open; one moved
    // elsewhere (another label) or re-labelled (another kid or IV) misses too
    const entry = this.entries.get(payload.ct);
    if (!entry || entry.label !== label || entry.kid !== payload.kid || entry.iv !== payload.iv) return undefined;
    return { value: JSON.parse(entry.json) };
  }
  /** Remembers the JSON text of a payload's value. */
  set(payload: SealedValue, label: string, json: string): void {
    if (this.entries.size >= this.max) evictOldest(this.entries, this.max);
    this.entries.set(payload.ct, { label, kid: payload.kid, iv: payload.iv, json });
  }
  /**
   * Opened values of a whole document revision (`id@rev`), in encrypted-attribute order, kept as
   * their JSON: every value came out of JSON (a decrypted text), and JSON.parse makes the fresh
   * copy a read hands out in a third of structuredClone's time.
   */
  private readonly revisions = new Map<string, string>();
  /** A fresh copy of the remembered values: the caller may change them. */
  revision(key: string): unknown[] | undefined {
    const json = this.revisions.get(key);
    return json === undefined ? undefined : (JSON.parse(json) as unknown[]);
  }
  setRevision(key: string, values: unknown[]): void {
    if (this.revisions.size >= this.max) evictOldest(this.revisions, this.max);
    this.revisions.set(key, JSON.stringify(values));
  }
  clear(): void {
    this.entries.clear();
    this.revisions.clear();
  }
}

/**
 * Forgets the oldest quarter of a full map in one pass. Not one entry per insertion: V8's Map
 * keeps deleted slots at the front until it rehashes, so `keys().next()` after many single
 * deletions walks them all — about 8 µs per insertion once a 10,000-entry cache is full.
 */
function evictOldest(map: Map<string, unknown>, max: number): void {
  let left = Math.max(1, Math.floor(max / 4));
  for (const key of map.keys()) {
    if (left-- <= 0) break;
    map.delete(key);
  }
}

export class Sealer {
  constructor(
    private readonly keyring: Keyring,
    private readonly cache: PlainCache,
  ) {}

  async seal(value: unknown, scope: string, docId: string, className: string, attribute: string): Promise<SealedValue> {
    const current = await this.keyring.currentKey(scope);
    return this.sealWith(current, randomIvs(1)[0]!, JSON.stringify(value), scope, docId, className, attribute);
  }

  /**
   * Seals a value's JSON under a key and IV already at hand (a batch resolves them once for all
   * its values). Synchronous where the platform's AES-GCM is (Node), else a promise.
   */
  private sealWith(
    current: { kid: string; key: CryptoKey },
    iv: Uint8Array<ArrayBuffer>,
    json: string,
    scope: string,
    docId: string,
    className: string,
    attribute: string,
  ): SealedValue | Promise<SealedValue> {
    const label = labelOf(docId, className, attribute);
    const sealed = encryptJson(current.key, undefined, label, iv, json);
    if (!(sealed instanceof Promise)) return this.remember(sealed, current.kid, scope, label, json);
    return sealed.then((done) => this.remember(done, current.kid, scope, label, json));
  }

  private remember({ iv, ct }: { iv: string; ct: string }, kid: string, scope: string, label: string, json: string): SealedValue {
    const payload: SealedValue = { '~enc': 1, scope, kid, iv, ct };
    this.cache.set(payload, label, json); // what was sealed is its JSON: no copy of the value to keep
    return payload;
  }

  /** The plaintext, or a sealed marker when the key is not held; DS_ENCRYPTION_INTEGRITY when it does not open. */
  async open(payload: SealedValue, docId: string, className: string, attribute: string): Promise<unknown> {
    const label = labelOf(docId, className, attribute);
    const hit = this.cache.get(payload, label);
    if (hit) return hit.value;
    const key = await this.keyring.keyFor(payload.scope, payload.kid);
    if (!key) return { '~sealed': true, scope: payload.scope } satisfies SealedMarker;
    try {
      // the cache keeps the decrypted text: the value parsed from it is the caller's own
      const json = await decryptText(key, payload.iv, payload.ct, label);
      this.cache.set(payload, label, json);
      return JSON.parse(json) as unknown;
    } catch {
      throw ENCRYPTION_ERRORS.encryptionIntegrity(
        `"${attribute}" of ${docId} does not open: its ciphertext was altered, or moved from another document or attribute.`,
        { path: attribute, details: { id: docId, scope: payload.scope, kid: payload.kid } },
      );
    }
  }

  /**
   * beforeValidate of an update: a sealed marker given back (a document read while locked and
   * written again) stands for the stored ciphertext; stored payloads are opened where the key
   * is held, so validation and triggers see plaintext, and the payload is remembered so an
   * unchanged value is stored with its ciphertext unchanged.
   */
  async openDraft(draft: Doc, ctx: WriteContext): Promise<Doc> {
    const attributes = encryptedAttributes(ctx.classModel);
    if (attributes.length === 0 || ctx.op === 'delete') return draft;
    // copied on the first change only: a create in clear (the common bulk case) changes nothing here
    let next: Record<string, unknown> = draft;
    const change = (name: string, value: unknown) => {
      if (next === draft) next = { ...draft };
      next[name] = value;
    };
    for (const { name } of attributes) {
      const stored = ctx.previous?.[name];
      if (isSealedMarker(next[name])) {
        if (!isSealed(stored)) throw ENCRYPTION_ERRORS.encryptionLocked(`"${name}" holds a sealed marker but there is no stored value behind it.`, { path: name });
        change(name, stored);
      }
      const value = next[name];
      if (!isSealed(value)) continue;
      const plain = await this.open(value, draft._id, ctx.classModel.name, name);
      if (isSealedMarker(plain)) {
        // key not held: a peer's ciphertext (its writer validated the plaintext) or the stored one
        // unchanged stays as it is, unvalidated; anything else shaped like a payload is validated
        // as the value it is (a forged payload is refused)
        if (ctx.origin === 'replication' || (stored !== undefined && JSON.stringify(value) === JSON.stringify(stored))) ctx.opaque.add(name);
        continue;
      }
      change(name, plain);
      opened(ctx).set(`${draft._id}/${name}`, { payload: value, json: JSON.stringify(plain) });
    }
    return next as Doc;
  }

  /** beforeWrite: seals every encrypted attribute (kept as is when unchanged and already sealed under the scope's current key). */
  async sealDraft(doc: Doc, ctx: WriteContext): Promise<Doc> {
    const attributes = encryptedAttributes(ctx.classModel);
    if (attributes.length === 0 || ctx.op === 'delete') return doc;
    const scope = scopeOf(doc, ctx.classModel);
    const sealedAhead = await this.sealBatchAhead(ctx);
    const openedBefore = opened(ctx);
    const next: Record<string, unknown> = { ...doc };
    for (const { name } of attributes) {
      const value = next[name];
      if (value === undefined || value === null) continue;
      if (isSealed(value)) {
        if (value.scope !== scope) {
          throw ENCRYPTION_ERRORS.encryptionLocked(`"${name}" must move to the scope "${scope}", which needs the key of "${value.scope}": unlock the stack first.`, { path: name });
        }
        continue; // locked update: the stored ciphertext, unchanged
      }
      const before = openedBefore.size > 0 ? openedBefore.get(`${doc._id}/${name}`) : undefined;
      const current = before && before.payload.scope === scope ? await this.keyring.currentKey(scope).catch(() => null) : null;
      if (before && current && before.payload.kid === current.kid && before.json === JSON.stringify(value)) {
        next[name] = before.payload;
        continue;
      }
      const ahead = sealedAhead.get(name)?.get(doc._id);
      next[name] = ahead && ahead.payload.scope === scope && unchangedSince(ahead, value) ? ahead.payload : await this.seal(value, scope, doc._id, ctx.classModel.name, name);
    }
    return next as Doc;
  }

  /**
   * Seals the new values of every draft of the call at once. In the browser a few dozen
   * WebCrypto operations are in flight: one at a time, each would pay a round trip to the crypto
   * thread pool. In Node (node:crypto, synchronous) the batch runs straight through, with no
   * promise per value. sealDraft uses a result only if the value is still the same. The result:
   * attribute name → document id → the value's JSON and payload.
   */
  private sealBatchAhead(ctx: WriteContext): Promise<Map<string, Map<string, SealedAhead>>> {
    let pending = ctx.batch.scratch.get(AHEAD) as Promise<Map<string, Map<string, SealedAhead>>> | undefined;
    if (!pending) {
      pending = (async () => {
        const values: { draft: Doc; model: ClassModel; scope: string; name: string; value: unknown }[] = [];
        const openedBefore = opened(ctx);
        for (const draft of ctx.batch.drafts) {
          const model = draft['~class'] === ctx.classModel.name ? ctx.classModel : null;
          if (!model || draft.active === false) continue;
          const scope = scopeOf(draft, model);
          for (const { name } of encryptedAttributes(model)) {
            const value = draft[name];
            if (value === undefined || value === null || isSealed(value) || (openedBefore.size > 0 && openedBefore.has(`${draft._id}/${name}`))) continue;
            values.push({ draft, model, scope, name, value });
          }
        }
        const out = new Map<string, Map<string, SealedAhead>>();
        if (values.length < 2) return out; // a single value: sealDraft seals it, nothing to overlap
        // once per batch rather than per value: each scope's current key, and every IV
        const keys = new Map<string, { kid: string; key: CryptoKey } | null>();
        for (const { scope } of values) if (!keys.has(scope)) keys.set(scope, await this.keyring.currentKey(scope).catch(() => null));
        const ivs = randomIvs(values.length);
        const remember = (name: string, id: string, value: unknown, json: string, payload: SealedValue) => {
          let byId = out.get(name);
          if (!byId) out.set(name, (byId = new Map()));
          byId.set(id, { value, json, payload });
        };
        const sealOne = (i: number): void | Promise<void> => {
          const { draft, model, scope, name, value } = values[i]!;
          const current = keys.get(scope);
          if (!current) return; // sealDraft seals it again and reports the error for its own document
          const json = JSON.stringify(value);
          const sealed = this.sealWith(current, ivs[i]!, json, scope, draft._id, model.name, name);
          if (!(sealed instanceof Promise)) return remember(name, draft._id, value, json, sealed);
          return sealed.then((payload) => remember(name, draft._id, value, json, payload));
        };
        await runConcurrently(values.length, sealOne, CONCURRENCY);
        return out;
      })();
      ctx.batch.scratch.set(AHEAD, pending);
    }
    return pending;
  }

  /** afterRead: opens what the held keys open; the rest reads as `{ "~sealed": true, scope }`. */
  async openRead(doc: Doc, model: ClassModel | undefined, written = false): Promise<Doc> {
    if (!model) return doc;
    const attributes = encryptedAttributes(model).filter((a) => isSealed(doc[a.name]));
    if (attributes.length === 0) return doc;
    // a revision is a hash of the document's content: the same id and _rev hold the same ciphertexts
    // (not for a write's result: it mixes plaintext with the values the write kept sealed)
    const revKey = doc._rev && !written ? `${doc._id}@${doc._rev}` : null;
    const known = revKey ? this.cache.revision(revKey) : undefined;
    const values = known ?? (await Promise.all(attributes.map(({ name }) => this.open(doc[name] as SealedValue, doc._id, model.name, name))));
    if (revKey && !known && !values.some(isSealedMarker)) this.cache.setRevision(revKey, values);
    const next: Record<string, unknown> = { ...doc };
    attributes.forEach(({ name }, i) => {
      next[name] = values[i];
    });
    return next as Doc;
  }
}

/** WebCrypto operations in flight at once (browser): past a few dozen the thread pool gains nothing more. */
const CONCURRENCY = 32;
const AHEAD = 'encryption:sealed-ahead';

interface SealedAhead {
  value: unknown;
  json: string;
  payload: SealedValue;
}

/**
 * Is the value the one the batch sealed? A string, number or boolean: the same value. An object
 * or array may have been changed in place since (a beforeWrite tap), so its JSON is compared.
 */
function unchangedSince(ahead: SealedAhead, value: unknown): boolean {
  return typeof value === 'object' ? ahead.json === JSON.stringify(value) : ahead.value === value;
}

/** Runs job(0) … job(count - 1), `limit` at once; a job that finished synchronously (Node's AES-GCM) is not awaited. */
async function runConcurrently(count: number, job: (i: number) => void | Promise<void>, limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const pending = job(next++);
      if (pending) await pending;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}
