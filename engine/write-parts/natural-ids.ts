import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { primaryKeyAttributes, type Doc } from '../../contracts/model.js';
import type { UnitItem } from '../../contracts/unit-of-work.js';
import { canonicalJson, naturalIdOf } from '../../kernel/drafts.js';
import { batchDuplicate } from '../indexes/key-claims.js';
import { underNaturalId } from '../indexes/key-ids.js';
import { claimFor, uniqueViolation, type PrimaryKeyIndex } from '../indexes/primary-keys.js';

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
  if (items.length < 2) return; // one document has nothing to meet
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
 * Is every item a new document under its key's natural id, or of a class that claims no key? The
 * usual batch: each document is its own claim, two of one key share their id (refused by
 * refuseDuplicateCreates), so planClaims would plan no entry — and the batch needs none planned
 * unless its class has counted entries (KeysShare.prepare asks: key-holders.ts countedEntries). Node only: the browser files
 * plan every batch (no bytes for this).
 */
export function naturalCreates(items: readonly UnitItem[]): boolean {
  for (const item of items) {
    if (item.op !== 'create' || item.previous) return false;
    const model = item.classModel;
    if (!model.simple && primaryKeyAttributes(model).length > 0 && !underNaturalId(model, item.doc)) return false;
  }
  return true;
}

/**
 * Creates of a batch that storage refused because their id is taken (409): for a create under
 * its key's natural id this is the key being taken — read only now, in this rare case, never
 * before a create. An active document there has the key (DS_UNIQUE_VIOLATION, as for any taken
 * key); a soft-deleted one is revived — the create becomes its next revision (its `_rev`;
 * `previous` set, so a failed write puts it back and the class counter counts it again) and the
 * write is tried again (true). A create under another id, or a document gone meanwhile, leaves
 * the kernel's answer (false; a retry would meet the same refusal or store it).
 */
export async function settleRefusedCreates(index: PrimaryKeyIndex, items: UnitItem[], refused: readonly number[]): Promise<boolean> {
  const natural = refused.filter((i) => {
    const item = items[i];
    return item.op === 'create' && !item.previous && naturalIdOf(item.classModel, item.doc) === item.doc._id;
  });
  if (natural.length === 0 || natural.length < refused.length) return false;
  const stored = await index.readDocs(natural.map((i) => items[i].doc._id));
  let revived = false;
  for (const i of natural) {
    const item = items[i];
    const existing = stored.get(item.doc._id);
    if (!existing) continue;
    const claim = claimFor(item.classModel, item.doc);
    if (existing.active !== false) throw claim ? uniqueViolation(claim, existing._id) : KERNEL_ERRORS.docExists(`A document with the id "${existing._id}" already exists.`, { details: { id: existing._id } });
    (item.doc as { _rev?: string })._rev = existing._rev;
    (item as { previous?: Doc }).previous = existing;
    revived = true;
  }
  return revived;
}
