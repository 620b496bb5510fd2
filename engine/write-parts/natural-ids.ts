import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { primaryKeyAttributes, type Doc } from '../../contracts/model.js';
import type { UnitItem } from '../../contracts/unit-of-work.js';
import { canonicalJson, naturalIdOf } from '../../kernel/drafts.js';
import { batchDuplicate, claimFor, uniqueViolation, type KeyClaim, type PrimaryKeyIndex } from '../indexes/primary-keys.js';

/**
 * A keyed document's id is derived from its key (kernel/drafts.ts naturalDocId), so its key
 * attributes never change: an update that changes or clears one is refused with
 * DS_PRIMARY_KEY_IMMUTABLE (to change a key, create the new document and delete the old one).
 * Documents with random ids from older stores are held to the same rule: one rule per class.
 */
export function refuseKeyChanges(items: readonly UnitItem[]): void {
  for (const item of items) {
    if (item.op !== 'update' || !item.previous || item.classModel.simple) continue;
    for (const attribute of primaryKeyAttributes(item.classModel)) {
      const before = item.previous[attribute.name] ?? null;
      const after = item.doc[attribute.name] ?? null;
      if (before === after || canonicalJson(before) === canonicalJson(after)) continue;
      throw KERNEL_ERRORS.primaryKeyImmutable(
        `"${attribute.name}" is part of the primary key of ${item.classModel.name}: it cannot be changed (create a document with the new key and delete "${item.doc._id}").`,
        { path: attribute.name, details: { id: item.doc._id, className: item.classModel.name, attribute: attribute.name } },
      );
    }
  }
}

/**
 * Two creates of one key in one batch share their natural id: the second is a duplicate key
 * (DS_UNIQUE_VIOLATION, as before natural ids), not a storage conflict on the id.
 */
export function refuseDuplicateCreates(items: readonly UnitItem[]): void {
  const created = new Set<string>();
  for (const item of items) {
    if (item.op !== 'create') continue;
    if (created.has(item.doc._id)) {
      const claim = claimFor(item.classModel, item.doc);
      if (claim) throw batchDuplicate(claim, item.doc._id);
    }
    created.add(item.doc._id);
  }
}

/**
 * The creates of a batch whose id is their key's natural id, checked against what this store
 * holds under that id (inside the write lock, before anything is written): an active document
 * already has the key (DS_UNIQUE_VIOLATION, as for any taken key); a soft-deleted one is revived
 * — the create is stored as its next revision (its `_rev`; `previous` set so a failed write puts
 * it back and the class counter counts it again). A tombstone (`_deleted`) needs nothing: PouchDB
 * stores a new document over it.
 */
export async function reviveNaturalIds(index: PrimaryKeyIndex, items: UnitItem[], claims: readonly { index: number; claim: KeyClaim }[]): Promise<void> {
  const fresh = claims.filter(({ index: i }) => {
    const item = items[i];
    return item.op === 'create' && !item.previous && naturalIdOf(item.classModel, item.doc) === item.doc._id;
  });
  if (fresh.length === 0) return;
  const stored = await index.readDocs(fresh.map(({ index: i }) => items[i].doc._id));
  for (const { index: i, claim } of fresh) {
    const existing = stored.get(items[i].doc._id);
    if (!existing) continue;
    if (existing.active !== false) throw uniqueViolation(claim, existing._id);
    (items[i].doc as { _rev?: string })._rev = existing._rev;
    (items[i] as { previous?: Doc }).previous = existing;
  }
}
