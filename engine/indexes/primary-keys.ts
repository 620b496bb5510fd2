import type { Clock } from '../../contracts/clock.js';
import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import { primaryKeyAttributes, type ClassModel, type Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from '../../storage/raw-reads.js';

/**
 * The primary-key index: one `_local` key document per key combination, its `_id` encoding
 * class and key values and its body naming the document that owns the key.
 *
 * Why `_local` documents: they live in the same store (one leveldb batch with the write), they
 * are read by id (a lookup is two gets, never a scan), they refuse a second writer of the same
 * key with a conflict (so two concurrent creates cannot both win), and they do not replicate:
 * the index is each peer's own, like a view.
 */
export interface KeyClaim {
  keyId: string;
  docId: string;
  className: string;
  attributes: string[];
}

export interface KeyDoc {
  _id: string;
  _rev?: string;
  docId: string;
  /** when the key was claimed (ms, by the stack's clock); a claim's document is written just after it */
  claimedAt?: number;
  /** who holds a claim made ahead of its document's write (a transaction's id): that writer's own create of a natural id is not refused by it */
  holder?: string;
}

const PREFIX = '_local/~pk/';
const CLAIM_CHUNK = 1000;
/**
 * How long a claim whose document does not exist yet counts as taken. The claim is written
 * just before its document, so a concurrent writer must not mistake "not written yet" for
 * "left behind by a crash"; past this grace period it is a crash leftover and may be reused.
 */
export const PENDING_CLAIM_GRACE_MS = 60_000;

export function primaryKeyValues(model: ClassModel, doc: Record<string, unknown>): unknown[] | null {
  const attributes = primaryKeyAttributes(model);
  if (attributes.length === 0) return null;
  const values = attributes.map((a) => doc[a.name]);
  // a document without its whole key has no index entry; mandatory checks refuse it anyway
  return values.some((v) => v === undefined || v === null) ? null : values;
}

export function keyIdOf(className: string, values: readonly unknown[]): string {
  return `${PREFIX}${className}/${JSON.stringify(values)}`;
}

export function claimFor(model: ClassModel, doc: Doc): KeyClaim | null {
  const values = primaryKeyValues(model, doc);
  if (!values) return null;
  return {
    keyId: keyIdOf(model.name, values),
    docId: doc._id,
    className: model.name,
    attributes: primaryKeyAttributes(model).map((a) => a.name),
  };
}

export function uniqueViolation(claim: KeyClaim, ownerId: string): DocstackError {
  return KERNEL_ERRORS.uniqueViolation(
    `Another ${claim.className} (${ownerId}) already has this ${claim.attributes.join(' + ')}.`,
    { path: claim.attributes.join(','), details: { className: claim.className, attributes: claim.attributes, existingId: ownerId } },
  );
}

/** One write of a batch, as the key plan sees it: the document after the write (null when it leaves) and before. */
export interface ClaimEntry {
  model: ClassModel;
  next: Doc | null;
  previous?: Doc | null;
}

export interface ClaimPlan {
  /** keys to claim before storing, with the index of the entry that claims each */
  claims: { index: number; claim: KeyClaim }[];
  /** keys to give back once stored */
  releases: KeyClaim[];
  /** entries refused because an earlier entry of the batch claims the same key */
  duplicates: { index: number; claim: KeyClaim; first: string; error: DocstackError }[];
}

/**
 * The one plan of primary-key claims for a batch, shared by the write pipeline and by
 * `stack.ingest`: a key is claimed when a live document takes it, released when its document
 * leaves it (re-keyed, deactivated, removed); two entries of one batch with the same key are a
 * duplicate (the first keeps it). Simple classes and skipped entries (null) claim nothing.
 */
export function planClaims(entries: readonly (ClaimEntry | null)[]): ClaimPlan {
  const plan: ClaimPlan = { claims: [], releases: [], duplicates: [] };
  const inBatch = new Map<string, string>();
  entries.forEach((entry, index) => {
    if (!entry || entry.model.simple) return;
    const live = entry.next && !(entry.next as { _deleted?: boolean })._deleted && entry.next.active !== false;
    const next = live ? claimFor(entry.model, entry.next!) : null;
    // an inactive document holds no key: reviving it (a create over it, an ingested undelete) claims again
    const prev = entry.previous && entry.previous.active !== false ? claimFor(entry.model, entry.previous) : null;
    if (next && next.keyId !== prev?.keyId) {
      const first = inBatch.get(next.keyId);
      if (first !== undefined && first !== next.docId) {
        plan.duplicates.push({ index, claim: next, first, error: batchDuplicate(next, first) });
        return;
      }
      inBatch.set(next.keyId, next.docId);
      plan.claims.push({ index, claim: next });
    }
    if (prev && prev.keyId !== next?.keyId) plan.releases.push(prev);
  });
  return plan;
}

export function batchDuplicate(claim: KeyClaim, first: string): DocstackError {
  return KERNEL_ERRORS.uniqueViolation(
    `Two documents of this batch have the same ${claim.attributes.join(' + ')} (${first} and ${claim.docId}).`,
    { path: claim.attributes.join(','), details: { className: claim.className, attributes: claim.attributes, existingId: first } },
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

  constructor(
    private readonly db: Database,
    private readonly loadClass: (name: string) => Promise<ClassModel | null>,
    private readonly clock: Clock,
  ) {}

  /** The id of the document that owns the key, or null. */
  async lookup(className: string, values: readonly unknown[]): Promise<string | null> {
    const keyId = keyIdOf(className, values);
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
    const keyDoc = await this.readKey(claim.keyId);
    if (!keyDoc || keyDoc.docId === claim.docId) return null;
    return (await this.isLiveOwner(keyDoc, claim)) ? keyDoc.docId : null;
  }

  /**
   * Claims every key or none: on a conflict with a live owner the keys claimed here are given
   * back and DS_UNIQUE_VIOLATION is thrown. A stale entry (its document gone, inactive or
   * re-keyed, as after a crash between the two writes) is taken over.
   */
  async claim(claims: readonly KeyClaim[], holder?: string): Promise<void> {
    if (claims.length === 0) return;
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
   * Reads the key entries of a batch's claims and releases and returns what to write for them
   * in the documents' own bulkDocs call: a free or stale key gets an entry (a stale one is taken
   * over at its revision), a key the claimant already holds needs nothing, a key a live document
   * owns is a conflict (`fresh`: a new document, whose natural id may be the owner's); a release deletes the entry if its document still owns it. Nothing is
   * written here. Call inside the store's write lock, so no writer of this process can take a
   * key between this read and the write.
   */
  async prepare(claims: readonly { index: number; claim: KeyClaim; fresh?: boolean; holder?: string }[], releases: readonly { index: number; claim: KeyClaim }[]): Promise<PreparedKeys> {
    const prepared: PreparedKeys = { writes: [], conflicts: [] };
    if (claims.length === 0 && releases.length === 0) return prepared;
    const claimedAt = this.clock.now();
    const current = await this.readKeys([...claims, ...releases].map((c) => c.claim.keyId));
    for (let i = 0; i < claims.length; i++) {
      const { index, claim, fresh, holder } = claims[i];
      const keyDoc = current[i];
      // a new document under a natural id finds an entry naming that very id when the key is
      // taken here (a live document, another writer's pending claim): checked like any owner;
      // the writer's own pending claim (a transaction committing) is its own
      if (keyDoc?.docId === claim.docId && (!fresh || (holder !== undefined && keyDoc.holder === holder))) continue;
      if (keyDoc && (await this.isLiveOwner(keyDoc, claim))) {
        prepared.conflicts.push({ index, claim, owner: keyDoc.docId });
        continue;
      }
      prepared.writes.push({ index, claim, entry: { _id: claim.keyId, ...(keyDoc ? { _rev: keyDoc._rev } : {}), docId: claim.docId, claimedAt } });
    }
    for (let i = 0; i < releases.length; i++) {
      const { index, claim } = releases[i];
      const keyDoc = current[claims.length + i];
      if (!keyDoc || keyDoc.docId !== claim.docId) continue;
      const { _rev, ...restore } = keyDoc;
      prepared.writes.push({ index, restore, entry: { _id: keyDoc._id, _rev, docId: keyDoc.docId, _deleted: true } });
    }
    return prepared;
  }

  /** Removes key entries, but only those still owned by the given document. */
  async release(claims: readonly KeyClaim[]): Promise<void> {
    for (const claim of claims) {
      const keyDoc = await this.readKey(claim.keyId);
      if (!keyDoc || keyDoc.docId !== claim.docId) continue;
      try {
        await this.db.remove(keyDoc._id, keyDoc._rev!);
      } catch (err) {
        if ((err as { status?: number }).status !== 409 && (err as { status?: number }).status !== 404) throw err;
      }
    }
  }

  /** The stored documents (not tombstones) among these ids, by id: the natural ids a batch creates. */
  async readDocs(ids: readonly string[]): Promise<Map<string, Doc>> {
    const found = new Map<string, Doc>();
    const result = await this.db.allDocs({ keys: [...ids], include_docs: true });
    for (const row of result.rows) {
      if ('doc' in row && row.doc) found.set(row.id, row.doc as unknown as Doc);
    }
    return found;
  }

  /** Several key entries at once (`_local` documents are read one get each; these run together). */
  private async readKeys(keyIds: readonly string[]): Promise<Array<KeyDoc | null>> {
    const out: Array<KeyDoc | null> = [];
    for (let start = 0; start < keyIds.length; start += CLAIM_CHUNK) {
      out.push(...(await Promise.all(keyIds.slice(start, start + CLAIM_CHUNK).map((id) => this.readKey(id)))));
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
