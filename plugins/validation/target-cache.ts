import type { ClientStack, Doc } from '../../index.js';

/** What a foreign-key check needs of a stored target: its class and whether it is active. */
export type StoredTarget = Pick<Doc, '_id' | '~class' | 'active'>;

interface Entry {
  target: StoredTarget;
  checkedAt: number;
}

/** Past this many targets the cache starts over (a bound on memory, not a policy). */
const MAX_ENTRIES = 50_000;

/**
 * Foreign-key targets this stack found stored, so a serial writer does not read the same
 * Category for every Item (the read was a third of a serial createDoc's cost). Kept by the
 * rule the class cache follows (engine/class-cache.ts): exact for this stack's own writes
 * (its `change` events, its purges), exact for every writer of the store while the change feed
 * runs, and otherwise re-read once an entry is older than VERIFY_AFTER_MS — so a target another
 * process or tab deactivated is seen within that delay, as a class they changed is. Only
 * targets that exist are kept: a missing one is read again each time (it may arrive any moment,
 * and a peer's referrer waits for it).
 */
export class TargetCache {
  private readonly entries = new Map<string, Entry>();
  /** bumped on every invalidation: a read that started before one does not keep its answer */
  private generation = 0;

  constructor(private readonly stack: ClientStack) {
    const drop = (e: { id?: unknown }) => typeof e?.id === 'string' && this.invalidate(e.id);
    const dropMany = (e: { ids?: unknown }) => Array.isArray(e?.ids) && e.ids.forEach((id) => typeof id === 'string' && this.invalidate(id));
    stack.on('change', drop);
    stack.on('purged', dropMany);
    const stopFeed = stack.changes.subscribe((change) => this.invalidate(change.id), { passive: true });
    stack.once('closed', () => {
      stack.off('change', drop);
      stack.off('purged', dropMany);
      stopFeed();
      this.entries.clear();
    });
  }

  /** The cached target when it is fresh, else undefined (read it, then `keep`). */
  fresh(id: string): StoredTarget | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    // the class cache's rule: exact while the feed runs, else trusted for VERIFY_AFTER_MS
    if (this.stack.classCache.trusts(entry.checkedAt)) return entry.target;
    this.entries.delete(id);
    return undefined;
  }

  /** Where a read starts: hand it to `keep` with what it read. */
  mark(): { generation: number; at: number } {
    return { generation: this.generation, at: this.stack.clock.now() };
  }

  /** Keeps what a read found, unless something was invalidated since it started. */
  keep(read: { generation: number; at: number }, id: string, doc: StoredTarget | null): void {
    if (!doc || read.generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(id, { target: { _id: doc._id, '~class': doc['~class'], active: doc.active }, checkedAt: read.at });
  }

  invalidate(id: string): void {
    this.generation += 1;
    this.entries.delete(id);
  }
}
