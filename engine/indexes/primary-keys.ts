import type { Clock } from '../../contracts/clock.js';
import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import type { ClassModel, Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from '../../storage/raw-reads.js';
import { KeyHolders } from './key-holders.js';
import { claimFor, isNaturalClaim, keyIdOf, naturalIdOfClaim, primaryKeyValues, type KeyClaim } from './key-ids.js';

// the claim and its ids (./key-ids.ts), where the engine and the plugin kit have always found them
export { claimFor, isNaturalClaim, keyIdOf, naturalIdOfClaim, primaryKeyValues, type KeyClaim };

/**
 * The primary-key index: one `_local` key document per key combination, its `_id` encoding
 * class and key values and its body naming the document that owns the key.
 *
 * Why `_local` documents: they live in the same store (one leveldb batch with the write), they
 * are read by id (a lookup is two gets, never a scan), they refuse a second writer of the same
 * key with a conflict (so two concurrent creates cannot both win), and they do not replicate:
 * the index is each peer's own, like a view.
 *
 * A document under its key's natural id (kernel/drafts.ts naturalDocId) has no entry: the
 * document is the claim (storage refuses a second create of its id). Entries remain for documents
 * with other ids (random ids of older stores and SPEC peers, an explicit `_id`) and for claims a
 * transaction holds ahead of its write; KeyHolders counts them per class, so a natural-id create
 * reads its key entry only in a class that has some. Every reader looks at the natural id and at
 * the entry. Entries an older store wrote for natural-id documents stay until their document
 * leaves its key (a release removes them); they name their own document, so no reader is misled.
 */
export interface KeyDoc {
  _id: string;
  _rev?: string;
  docId: string;
  /** when the key was claimed (ms, by the stack's clock); a claim's document is written just after it */
  claimedAt?: number;
  /** who holds a claim made ahead of its document's write (a transaction's id): that writer's own create of a natural id is not refused by it */
  holder?: string;
}

const CLAIM_CHUNK = 1000;
/**
 * How long a claim whose document does not exist yet counts as taken. The claim is written
 * just before its document, so a concurrent writer must not mistake "not written yet" for
 * "left behind by a crash"; past this grace period it is a crash leftover and may be reused.
 */
export const PENDING_CLAIM_GRACE_MS = 60_000;

export function uniqueViolation(claim: KeyClaim, ownerId: string): DocstackError {
  return KERNEL_ERRORS.uniqueViolation(
    `Another ${claim.className} (${ownerId}) already has this ${claim.attributes.join(' + ')}.`,
    { path: claim.attributes.join(','), details: { className: claim.className, attributes: claim.attributes, existingId: ownerId } },
  );
}

/** A key entry to write in the same bulkDocs call as the documents (see PrimaryKeyIndex.prepare). */
export interface KeyEntryWrite {
  /** the document (by index in the caller's batch) this entry belongs to */
  index: number;
  entry: KeyDoc & { _deleted?: boolean };
  /** a claim: its key; a release: the entry as it was, to put back if the write is undone */
  claim?: KeyClaim;
  restore?: KeyDoc;
  /** a release of an entry KeyHolders counts: lower the count once it is removed (PrimaryKeyIndex.released) */
  counted?: string;
}

export interface PreparedKeys {
  writes: KeyEntryWrite[];
  /** claims whose key a live document (or a pending claim) owns: refused before anything is written */
  conflicts: { index: number; claim: KeyClaim; owner: string }[];
}

/** How many key → owner hints a stack keeps (see PrimaryKeyIndex.hint); past it they start over. */
const HINTS_MAX = 100_000;

export class PrimaryKeyIndex {
  /**
   * key → owning document, as this stack last claimed or looked it up: a hint that saves the key
   * entry's read, never an answer. Whoever uses it reads the document and checks it holds the
   * key (Class.getByPrimaryKeys), and asks the index when it does not.
   */
  private readonly hints = new Map<string, string>();
  /** per class, how many entries a natural-id create must look at (see KeyHolders) */
  readonly holders: KeyHolders;

  constructor(
    private readonly db: Database,
    private readonly loadClass: (name: string) => Promise<ClassModel | null>,
    private readonly clock: Clock,
    activeCount: (className: string) => Promise<number> = async () => Infinity,
  ) {
    this.holders = new KeyHolders(db, activeCount);
  }

  /**
   * The id of the document that owns the key, or null: the key's natural id when a live document
   * there holds it, else the key entry (`naturalChecked`: the caller has read the natural id).
   */
  async lookup(className: string, values: readonly unknown[], naturalChecked = false): Promise<string | null> {
    const keyId = keyIdOf(className, values);
    if (!naturalChecked) {
      const natural = await this.naturalHolder({ keyId, className });
      if (natural) return natural;
    }
    if ((await this.holders.count(className)) === 0) return null;
    const keyDoc = await this.readKey(keyId);
    if (keyDoc) this.remember(keyId, keyDoc.docId);
    return keyDoc?.docId ?? null;
  }

  /** The document this stack last saw owning the key (unverified: read it and check), or undefined. */
  hint(keyId: string): string | undefined {
    return this.hints.get(keyId);
  }

  /** Records (docId) or forgets (null) who owns a key, after a write or a lookup. */
  remember(keyId: string, docId: string | null): void {
    if (docId === null) {
      this.hints.delete(keyId);
      return;
    }
    if (this.hints.size >= HINTS_MAX) this.hints.clear();
    this.hints.set(keyId, docId);
  }

  /** The current owner of a claim's key other than the claimant, or null when free or stale. */
  async ownerOf(claim: KeyClaim): Promise<string | null> {
    const natural = await this.naturalHolder(claim);
    if (natural && natural !== claim.docId) return natural;
    const keyDoc = await this.readKey(claim.keyId);
    if (!keyDoc || keyDoc.docId === claim.docId) return null;
    return (await this.isLiveOwner(keyDoc, claim)) ? keyDoc.docId : null;
  }

  /**
   * Claims every key or none, ahead of the documents' write (a transaction's keys, `holder` its
   * id): on a conflict with a live owner — a live document under the key's natural id, or an
   * entry's live owner — the keys claimed here are given back and DS_UNIQUE_VIOLATION is thrown.
   * A stale entry (its document gone, inactive or re-keyed, as after a crash between the two
   * writes) is taken over. Every entry written here is counted (KeyHolders), natural id or not:
   * a natural-id create of another writer must see it.
   */
  async claim(claims: readonly KeyClaim[], holder?: string): Promise<void> {
    if (claims.length === 0) return;
    for (const claim of claims) {
      const natural = await this.naturalHolder(claim);
      if (natural) throw uniqueViolation(claim, natural);
    }
    for (const [className, n] of countBy(claims)) await this.holders.add(className, n);
    const claimedAt = this.clock.now();
    const taken: KeyClaim[] = [];
    const conflicts: KeyClaim[] = [];
    // chunks: PouchDB's bulkDocs grows worse than linearly with the batch
    for (let start = 0; start < claims.length; start += CLAIM_CHUNK) {
      const chunk = claims.slice(start, start + CLAIM_CHUNK);
      const results = await this.db.bulkDocs(chunk.map((c) => ({ _id: c.keyId, docId: c.docId, claimedAt, ...(holder !== undefined ? { holder } : {}) })) as never[]);
      results.forEach((result, i) => {
        if ('error' in result && result.error) conflicts.push(chunk[i]);
        else taken.push(chunk[i]);
      });
    }
    for (const claim of conflicts) {
      const keyDoc = await this.readKey(claim.keyId);
      // the same docId: a natural id's own key, held by a live document or a pending claim (keys are claimed only when new to their document)
      if (keyDoc && (await this.isLiveOwner(keyDoc, claim))) {
        await this.release(taken);
        throw uniqueViolation(claim, keyDoc.docId);
      }
      try {
        await this.db.put({ _id: claim.keyId, _rev: keyDoc?._rev, docId: claim.docId, claimedAt: this.clock.now(), ...(holder !== undefined ? { holder } : {}) } as never);
        taken.push(claim);
      } catch (err) {
        await this.release(taken);
        if ((err as { status?: number }).status === 409) throw uniqueViolation(claim, '(a concurrent writer)');
        throw err;
      }
    }
  }

  /**
   * Reads what a batch's claims and releases need and returns what to write for them in the
   * documents' own bulkDocs call. A claim under its natural id writes nothing (the document is
   * the claim; a second create of the id is refused by storage) and reads its key entry only
   * when its class has counted entries (KeyHolders): one naming another live document, or a
   * pending claim of another writer (`fresh`: a new document; `holder`: the writer's own
   * transaction), is a conflict. A claim under another id reads its entry and the key's natural
   * id: a live owner of either is a conflict; else a free or stale entry is written (counted;
   * the count is raised here, before the write). A release deletes the entry if its document
   * still owns it (a natural-id document's only in a class with counted entries: an older
   * store's or a transaction's). Call inside the store's write lock, so no writer of this
   * process can take a key between this read and the write.
   */
  /**
   * True when `prepare` would read and write nothing, known without waiting: no releases, and
   * every claim is under its key's natural id in a class with no counted entries (the usual
   * create). The write path then skips prepare's reads and turns of the event loop altogether.
   */
  preparesNothing(claims: readonly { claim: KeyClaim }[], releases: readonly unknown[]): boolean {
    if (releases.length > 0) return false;
    for (const { claim } of claims) {
      if (this.holders.knownCount(claim.className) !== 0 || !isNaturalClaim(claim)) return false;
    }
    return true;
  }

  /**
   * preparesNothing once the classes' counts of entries are read (a stack's first write of a
   * class does not know them yet): true when that read is all a large first batch needed.
   */
  async preparesNothingCounted(claims: readonly { claim: KeyClaim }[], releases: readonly unknown[]): Promise<boolean> {
    for (const className of new Set(claims.map(({ claim }) => claim.className))) await this.holders.count(className);
    return this.preparesNothing(claims, releases);
  }

  async prepare(claims: readonly { index: number; claim: KeyClaim; fresh?: boolean; holder?: string }[], releases: readonly { index: number; claim: KeyClaim }[]): Promise<PreparedKeys> {
    const prepared: PreparedKeys = { writes: [], conflicts: [] };
    if (claims.length === 0 && releases.length === 0) return prepared;
    const others = new Map<string, number>();
    for (const { claim } of [...claims, ...releases]) if (!others.has(claim.className)) others.set(claim.className, await this.holders.count(claim.className));
    const naturalIds = claims.map(({ claim }) => naturalIdOfClaim(claim));
    const natural = claims.map(({ claim }, i) => naturalIds[i] === claim.docId);
    const releasedNatural = releases.map(({ claim }) => isNaturalClaim(claim));
    // the entries to read (null: not read) and, for claims under other ids, the documents under their keys' natural ids
    const entryIds = [
      ...claims.map(({ claim }, i) => (!natural[i] || others.get(claim.className)! > 0 ? claim.keyId : null)),
      ...releases.map(({ claim }, i) => (!releasedNatural[i] || others.get(claim.className)! > 0 ? claim.keyId : null)),
    ];
    const current = await this.readKeys(entryIds);
    const naturalDocs = await this.readDocs(naturalIds.filter((id, i): id is string => id !== undefined && !natural[i]));
    const claimedAt = this.clock.now();
    const added = new Map<string, number>();
    for (let i = 0; i < claims.length; i++) {
      const { index, claim, fresh, holder } = claims[i];
      const keyDoc = current[i];
      if (!natural[i]) {
        const holderDoc = naturalIds[i] !== undefined ? naturalDocs.get(naturalIds[i]!) : undefined;
        if (holderDoc && (await this.holds(holderDoc, claim))) {
          prepared.conflicts.push({ index, claim, owner: holderDoc._id });
          continue;
        }
      }
      // a new document under a natural id finds an entry naming that very id when another
      // writer's pending claim (a transaction's) holds it: checked like any owner; the writer's
      // own pending claim (a transaction committing) is its own
      if (keyDoc?.docId === claim.docId && (!fresh || (holder !== undefined && keyDoc.holder === holder))) continue;
      if (keyDoc && (await this.isLiveOwner(keyDoc, claim))) {
        prepared.conflicts.push({ index, claim, owner: keyDoc.docId });
        continue;
      }
      if (natural[i]) continue; // the document is the claim
      added.set(claim.className, (added.get(claim.className) ?? 0) + 1);
      prepared.writes.push({ index, claim, entry: { _id: claim.keyId, ...(keyDoc ? { _rev: keyDoc._rev } : {}), docId: claim.docId, claimedAt } });
    }
    for (let i = 0; i < releases.length; i++) {
      const { index, claim } = releases[i];
      const keyDoc = current[claims.length + i];
      if (!keyDoc || keyDoc.docId !== claim.docId) continue;
      const { _rev, ...restore } = keyDoc;
      const counted = keyDoc.holder !== undefined || !releasedNatural[i] ? claim.className : undefined;
      prepared.writes.push({ index, restore, entry: { _id: keyDoc._id, _rev, docId: keyDoc.docId, _deleted: true }, ...(counted ? { counted } : {}) });
    }
    for (const [className, n] of added) await this.holders.add(className, n);
    return prepared;
  }

  /** After a write: lowers the holder counts for the counted entries it removed (stored writes only). */
  async released(writes: readonly KeyEntryWrite[]): Promise<void> {
    const removed = new Map<string, number>();
    for (const w of writes) if (w.counted) removed.set(w.counted, (removed.get(w.counted) ?? 0) + 1);
    for (const [className, n] of removed) await this.holders.remove(className, n);
  }

  /** Removes key entries, but only those still owned by the given document. */
  async release(claims: readonly KeyClaim[]): Promise<void> {
    const removed = new Map<string, number>();
    for (const claim of claims) {
      const keyDoc = await this.readKey(claim.keyId);
      if (!keyDoc || keyDoc.docId !== claim.docId) continue;
      try {
        await this.db.remove(keyDoc._id, keyDoc._rev!);
        if (keyDoc.holder !== undefined || !isNaturalClaim(claim)) removed.set(claim.className, (removed.get(claim.className) ?? 0) + 1);
      } catch (err) {
        if ((err as { status?: number }).status !== 409 && (err as { status?: number }).status !== 404) throw err;
      }
    }
    for (const [className, n] of removed) await this.holders.remove(className, n);
  }

  /** The stored documents (not tombstones) among these ids, by id: the natural ids a batch creates. */
  async readDocs(ids: readonly string[]): Promise<Map<string, Doc>> {
    const found = new Map<string, Doc>();
    if (ids.length === 0) return found;
    const result = await this.db.allDocs({ keys: [...ids], include_docs: true });
    for (const row of result.rows) {
      if ('doc' in row && row.doc) found.set(row.id, row.doc as unknown as Doc);
    }
    return found;
  }

  /** The live document under the key's natural id that holds the key, or null. */
  private async naturalHolder(claim: { keyId: string; className: string }): Promise<string | null> {
    const id = naturalIdOfClaim(claim);
    const doc = id ? await readRaw<Doc>(this.db, id) : null;
    return doc && (await this.holds(doc, claim)) ? doc._id : null;
  }

  /** Is the document active, of the claim's class and holding its key? */
  private async holds(doc: Doc, claim: { keyId: string; className: string }): Promise<boolean> {
    if (doc.active === false || doc['~class'] !== claim.className) return false;
    const model = await this.loadClass(claim.className);
    return !!model && claimFor(model, doc)?.keyId === claim.keyId;
  }

  /** Several key entries at once (`_local` documents are read one get each; these run together); null ids are not read. */
  private async readKeys(keyIds: readonly (string | null)[]): Promise<Array<KeyDoc | null>> {
    const out: Array<KeyDoc | null> = [];
    for (let start = 0; start < keyIds.length; start += CLAIM_CHUNK) {
      out.push(...(await Promise.all(keyIds.slice(start, start + CLAIM_CHUNK).map((id) => (id === null ? null : this.readKey(id))))));
    }
    return out;
  }

  private readKey(keyId: string): Promise<KeyDoc | null> {
    return readRaw<KeyDoc>(this.db, keyId);
  }

  /**
   * Does the key entry still describe its document (present, active, same key values)? A
   * claim whose document is not written yet is live during the grace period.
   */
  private async isLiveOwner(keyDoc: KeyDoc, claim: KeyClaim): Promise<boolean> {
    const owner = await readRaw(this.db, keyDoc.docId);
    if (!owner) return this.clock.now() - (keyDoc.claimedAt ?? 0) < PENDING_CLAIM_GRACE_MS;
    if (owner.active === false) return false;
    const model = await this.loadClass(claim.className);
    if (!model) return false;
    return claimFor(model, owner)?.keyId === claim.keyId;
  }
}

function countBy(claims: readonly KeyClaim[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of claims) out.set(c.className, (out.get(c.className) ?? 0) + 1);
  return out;
}
