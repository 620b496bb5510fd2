import type { StoredResult, UnitDoc, UnitItem, UnitOfWork, WritePart, WriteShare } from '../../contracts/unit-of-work.js';
import { keepShape } from '../../storage/kept-shapes.js';
import { planClaims } from '../indexes/key-claims.js';
import { uniqueViolation, type KeyClaim, type KeyEntryWrite, type PrimaryKeyIndex } from '../indexes/primary-keys.js';
import { anyCounted, countedEntries } from '../indexes/key-holders.js';
import { naturalCreates, refuseDuplicateCreates, refuseKeyChanges, settleRefusedCreates } from './natural-ids.js';

/**
 * The primary-key entries of a write, as a unit-of-work part: the keys it claims and gives back
 * are planned once every draft is validated (a duplicate inside the batch refuses it, dry runs
 * too), read under the write lock (a key a live document owns refuses it before anything is
 * stored), and stored in the documents' own bulkDocs calls; undone with them. A create under its
 * key's natural id is its own claim: nothing read or written for it (PrimaryKeyIndex.prepare);
 * storage refusing its id is a taken key, or a soft-deleted document to revive (`refused`).
 */
export function primaryKeysPart(index: PrimaryKeyIndex): WritePart {
  // bound, not a closure per stack: it runs on every write (docs/benchmarks.md#code-shared-by-every-stack)
  return { name: 'primary-keys', begin: beginKeys.bind(index) };
}

function beginKeys(this: PrimaryKeyIndex, work: UnitOfWork): WriteShare {
  return new KeysShare(this, work);
}

/** KeysShare's claims while a batch of natural-id creates is not planned (Node only) */
const UNPLANNED: { index: number; claim: KeyClaim }[] = [];

/** One write's share: a class, not closures — every write makes one, and most use two of its steps. */
class KeysShare implements WriteShare {
  /** UNPLANNED: checked found only creates under natural ids (naturalCreates), planned only if prepare needs it */
  private claims: { index: number; claim: KeyClaim }[] = [];
  private releases: { index: number; claim: KeyClaim }[] = [];
  /** key entries to write, by item (most writes have none) */
  private byItem: Map<number, KeyEntryWrite[]> | undefined;
  private chunk: KeyEntryWrite[] = [];
  private readonly written: { write: KeyEntryWrite; rev: string }[] = [];

  constructor(
    private readonly index: PrimaryKeyIndex,
    private readonly work: UnitOfWork,
  ) {}

  /** `planAll`: plan even a batch of natural-id creates (prepare found counted entries) */
  checked(planAll?: boolean): void {
    const { items } = this.work;
    refuseKeyChanges(items);
    refuseDuplicateCreates(items);
    // the usual batch plans nothing (planClaims was ≈ a tenth of a bulk create's own CPU): planned in prepare only if a class has counted entries
    if (!globalThis.docstackBrowserBuild && !planAll && naturalCreates(items)) {
      this.claims = UNPLANNED;
      return;
    }
    const plan = planClaims(items.map((item) => ({ model: item.classModel, next: item.op === 'delete' ? null : item.doc, previous: item.previous })));
    if (plan.duplicates.length > 0) throw plan.duplicates[0].error;
    this.claims = plan.claims;
    if (plan.releases.length === 0) return; // the usual create gives no key back
    const indexOf = new Map(items.map((item, i) => [item.doc._id, i]));
    this.releases = plan.releases.map((claim) => ({ index: indexOf.get(claim.docId) ?? 0, claim }));
  }

  prepare(): void | Promise<void> {
    if (!globalThis.docstackBrowserBuild && this.claims === UNPLANNED) {
      // creates under natural ids (checked): planned only if a keyed class of theirs has counted entries
      const counted = countedEntries(this.index.holders, this.work.items);
      if (counted === false) return undefined;
      return anyCounted(this.index.holders, counted).then((any) => {
        if (!any) return;
        this.checked(true);
        return this.prepareKeys();
      });
    }
    // the usual create (natural id, no counted entries) has nothing to read: no await at all
    return this.index.preparesNothing(this.claims, this.releases) ? undefined : this.prepareKeys();
  }

  private async prepareKeys(): Promise<void> {
    if (await this.index.preparesNothingCounted(this.claims, this.releases)) return;
    const fresh = this.claims.map((c) => {
      const { op, previous, context } = this.work.items[c.index];
      const holder = typeof context.transaction === 'string' ? context.transaction : undefined;
      return { ...c, fresh: op === 'create' && !previous, ...(holder !== undefined ? { holder } : {}) };
    });
    const keys = await this.index.prepare(fresh, this.releases);
    if (keys.conflicts.length > 0) throw uniqueViolation(keys.conflicts[0].claim, keys.conflicts[0].owner);
    const byItem = (this.byItem ??= new Map());
    for (const write of keys.writes) byItem.set(write.index, [...(byItem.get(write.index) ?? []), write]);
  }

  docs(start: number, end: number): UnitDoc[] {
    this.chunk = [];
    if (!this.byItem) return [];
    for (let i = start; i < end; i++) this.chunk.push(...(this.byItem.get(i) ?? []));
    return this.chunk.map((write) => write.entry as unknown as UnitDoc);
  }

  stored(results: readonly StoredResult[]): Error | undefined {
    let lost: Error | undefined;
    results.forEach((result, i) => {
      const write = this.chunk[i];
      if (!result.error) this.written.push({ write, rev: result.rev! });
      else if (write.claim) lost ??= uniqueViolation(write.claim, '(a concurrent writer)');
    });
    return lost;
  }

  async undo(): Promise<UnitDoc[]> {
    return this.written.map(({ write, rev }) => (write.claim ? { _id: write.entry._id, _rev: rev, _deleted: true } : ({ ...write.restore! } as unknown as UnitDoc)));
  }

  refused(indexes: readonly number[]): Promise<boolean> {
    return settleRefusedCreates(this.index, this.work.items as UnitItem[], indexes);
  }

  done(): void | Promise<void> {
    if (this.written.length === 0) return undefined;
    for (const { write } of this.written) this.index.remember(write.entry._id, write.claim ? write.claim.docId : null);
    return this.index.released(this.written.map(({ write }) => write));
  }
}

// its hidden class outlives the writes (storage/kept-shapes.ts; Node only: the browser files have no bytes for it)
if (!globalThis.docstackBrowserBuild) keepShape(new KeysShare(null as never, { items: [], origin: 'local', dryRun: false }));
