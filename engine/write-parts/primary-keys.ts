import type { UnitDoc, UnitItem, WritePart } from '../../contracts/unit-of-work.js';
import { planClaims } from '../indexes/key-claims.js';
import { uniqueViolation, type KeyClaim, type KeyEntryWrite, type PrimaryKeyIndex } from '../indexes/primary-keys.js';
import { refuseDuplicateCreates, refuseKeyChanges, settleRefusedCreates } from './natural-ids.js';

/**
 * The primary-key entries of a write, as a unit-of-work part: the keys it claims and gives back
 * are planned once every draft is validated (a duplicate inside the batch refuses it, dry runs
 * too), read under the write lock (a key a live document owns refuses it before anything is
 * stored), and stored in the documents' own bulkDocs calls; undone with them. A create under its
 * key's natural id is its own claim: nothing read or written for it (PrimaryKeyIndex.prepare);
 * storage refusing its id is a taken key, or a soft-deleted document to revive (`refused`).
 */
export function primaryKeysPart(index: PrimaryKeyIndex): WritePart {
  return {
    name: 'primary-keys',
    begin(work) {
      let claims: { index: number; claim: KeyClaim }[] = [];
      let releases: { index: number; claim: KeyClaim }[] = [];
      let byItem: Map<number, KeyEntryWrite[]> | undefined; // key entries to write, by item (most writes have none)
      let chunk: KeyEntryWrite[] = [];
      const written: { write: KeyEntryWrite; rev: string }[] = [];
      const prepareKeys = async () => {
        const fresh = claims.map((c) => {
          const { op, previous, context } = work.items[c.index];
          const holder = typeof context.transaction === 'string' ? context.transaction : undefined;
          return { ...c, fresh: op === 'create' && !previous, ...(holder !== undefined ? { holder } : {}) };
        });
        const keys = await index.prepare(fresh, releases);
        if (keys.conflicts.length > 0) throw uniqueViolation(keys.conflicts[0].claim, keys.conflicts[0].owner);
        for (const write of keys.writes) (byItem ??= new Map()).set(write.index, [...(byItem.get(write.index) ?? []), write]);
      };
      return {
        checked() {
          const { items } = work;
          refuseKeyChanges(items);
          refuseDuplicateCreates(items);
          const plan = planClaims(items.map((item) => ({ model: item.classModel, next: item.op === 'delete' ? null : item.doc, previous: item.previous })));
          if (plan.duplicates.length > 0) throw plan.duplicates[0].error;
          claims = plan.claims;
          if (plan.releases.length === 0) return; // the usual create gives no key back
          const indexOf = new Map(items.map((item, i) => [item.doc._id, i]));
          releases = plan.releases.map((claim) => ({ index: indexOf.get(claim.docId) ?? 0, claim }));
        },
        prepare() {
          // the usual create (natural id, no counted entries) has nothing to read: no await at all
          return index.preparesNothing(claims, releases) ? undefined : prepareKeys();
        },
        docs(start, end) {
          chunk = [];
          if (!byItem) return [];
          for (let i = start; i < end; i++) chunk.push(...(byItem.get(i) ?? []));
          return chunk.map((write) => write.entry as unknown as UnitDoc);
        },
        stored(results) {
          let lost: Error | undefined;
          results.forEach((result, i) => {
            if (!result.error) written.push({ write: chunk[i], rev: result.rev! });
            else if (chunk[i].claim) lost ??= uniqueViolation(chunk[i].claim!, '(a concurrent writer)');
          });
          return lost;
        },
        async undo() {
          return written.map(({ write, rev }) => (write.claim ? { _id: write.entry._id, _rev: rev, _deleted: true } : ({ ...write.restore! } as unknown as UnitDoc)));
        },
        refused: (indexes) => settleRefusedCreates(index, work.items as UnitItem[], indexes),
        done() {
          if (written.length === 0) return undefined;
          for (const { write } of written) index.remember(write.entry._id, write.claim ? write.claim.docId : null);
          return index.released(written.map(({ write }) => write));
        },
      };
    },
  };
}
