import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import type { ClassModel, Doc } from '../../contracts/model.js';
import { claimFor, type KeyClaim } from './primary-keys.js';

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
  const inBatch = entries.length > 1 ? new Map<string, string>() : undefined; // one entry meets no other
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    if (!entry || entry.model.simple) continue;
    const live = entry.next && !(entry.next as { _deleted?: boolean })._deleted && entry.next.active !== false;
    const next = live ? claimFor(entry.model, entry.next!) : null;
    // an inactive document holds no key: reviving it (a create over it, an ingested undelete) claims again
    const prev = entry.previous && entry.previous.active !== false ? claimFor(entry.model, entry.previous) : null;
    if (next && next.keyId !== prev?.keyId) {
      const first = inBatch?.get(next.keyId);
      if (first !== undefined && first !== next.docId) {
        plan.duplicates.push({ index, claim: next, first, error: batchDuplicate(next, first) });
        continue;
      }
      inBatch?.set(next.keyId, next.docId);
      plan.claims.push({ index, claim: next });
    }
    if (prev && prev.keyId !== next?.keyId) plan.releases.push(prev);
  }
  return plan;
}

export function batchDuplicate(claim: KeyClaim, first: string): DocstackError {
  return KERNEL_ERRORS.uniqueViolation(
    `Two documents of this batch have the same ${claim.attributes.join(' + ')} (${first} and ${claim.docId}).`,
    { path: claim.attributes.join(','), details: { className: claim.className, attributes: claim.attributes, existingId: first } },
  );
}
