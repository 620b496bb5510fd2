import { claimedAttributes } from './model.js';
import { KERNEL_ERRORS, type ClassModel, type Clock, type Doc, DocstackError, type Storage } from '../../index.js';

/**
 * The index of unique values, built like the kernel's primary-key index
 * (engine/indexes/primary-keys.ts): one `_local` claim document per (class, attribute, value)
 * naming the document that holds the value. A second writer of the same claim gets PouchDB's
 * conflict, so two concurrent writers cannot both win; `_local` documents do not replicate, so
 * each peer keeps its own index. A claim whose document does not hold the value any more
 * (changed, inactive, gone) is stale and taken over; one whose document is not written yet
 * counts as taken for its hold (60 s; a claim made over the node's route: 10 minutes).
 */
export interface ValueClaim {
  keyId: string;
  docId: string;
  className: string;
  attribute: string;
  value: unknown;
}

interface ClaimDoc {
  _id: string;
  _rev?: string;
  docId: string;
  claimedAt: number;
  holdMs?: number;
}

const PREFIX = '_local/~unique/';
export const WRITE_HOLD_MS = 60_000;
export const ROUTE_HOLD_MS = 10 * 60_000;

export function claimOf(className: string, attribute: string, value: unknown, docId: string): ValueClaim {
  return { keyId: `${PREFIX}${className}/${attribute}/${JSON.stringify(value)}`, docId, className, attribute, value };
}

/** The claims a document's values make (none for a value that is absent). */
export function claimsOf(model: ClassModel, doc: Record<string, unknown> | null | undefined): ValueClaim[] {
  if (!doc || doc.active === false || doc._deleted === true) return [];
  return claimedAttributes(model)
    .filter((a) => doc[a.name] !== undefined && doc[a.name] !== null)
    .map((a) => claimOf(model.name, a.name, doc[a.name], String(doc._id)));
}

/** `ownerId` is absent when the node did not name the holder (one the caller may not read). */
export function uniqueRefusal(claim: ValueClaim, ownerId: string | undefined): DocstackError {
  return KERNEL_ERRORS.uniqueViolation(
    `Another ${claim.className}${ownerId ? ` (${ownerId})` : ''} already has this ${claim.attribute} (${JSON.stringify(claim.value)}).`,
    { path: claim.attribute, details: { className: claim.className, attributes: [claim.attribute], ...(ownerId ? { existingId: ownerId } : {}) } },
  );
}

export class UniqueIndex {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /** The id of the live document (or live hold) that has the value, other than the claimant; or null. */
  async ownerOf(claim: ValueClaim): Promise<string | null> {
    const keyDoc = await this.storage.get<ClaimDoc>(claim.keyId);
    if (!keyDoc || keyDoc.docId === claim.docId) return null;
    return (await this.isLive(keyDoc, claim)) ? keyDoc.docId : null;
  }

  /**
   * Claims the value for the claimant: null when it now holds it, else the id of the live owner.
   * `force` takes it whoever holds it (a client pulling what its node decided).
   */
  async claim(claim: ValueClaim, options: { force?: boolean; holdMs?: number } = {}): Promise<string | null> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const keyDoc = await this.storage.get<ClaimDoc>(claim.keyId);
      if (keyDoc && keyDoc.docId === claim.docId && options.holdMs === undefined) return null;
      if (keyDoc && keyDoc.docId !== claim.docId && !options.force && (await this.isLive(keyDoc, claim))) return keyDoc.docId;
      try {
        const next: ClaimDoc = { _id: claim.keyId, docId: claim.docId, claimedAt: this.clock.now(), ...(options.holdMs ? { holdMs: options.holdMs } : {}) };
        await this.storage.put(keyDoc?._rev ? { ...next, _rev: keyDoc._rev } : next);
        return null;
      } catch (err) {
        if ((err as { status?: number }).status !== 409) throw err;
        // a concurrent claimant wrote first: read again and decide
      }
    }
    return '(a concurrent writer)';
  }

  /** Gives the value back, but only while the document still holds the claim. */
  async release(claim: ValueClaim): Promise<void> {
    const keyDoc = await this.storage.get<ClaimDoc>(claim.keyId);
    if (!keyDoc || keyDoc.docId !== claim.docId || !keyDoc._rev) return;
    await this.storage.remove(keyDoc._id, keyDoc._rev).catch((err: { status?: number }) => {
      if (err.status !== 409 && err.status !== 404) throw err;
    });
  }

  /** Does the claim still describe its document (present, active, same value)? A hold not written yet is live for its time. */
  private async isLive(keyDoc: ClaimDoc, claim: ValueClaim): Promise<boolean> {
    const owner = await this.storage.get<Doc>(keyDoc.docId);
    if (!owner) return this.clock.now() - keyDoc.claimedAt < (keyDoc.holdMs ?? WRITE_HOLD_MS);
    if (owner.active === false) return false;
    return JSON.stringify(owner[claim.attribute]) === JSON.stringify(claim.value);
  }
}
