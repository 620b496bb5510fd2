import { readRaw, rangePages } from '../../storage/raw-reads.js';
import type { Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { storeKeyOf, type WriteLock } from '../../storage/write-lock.js';

/**
 * The counters this process last wrote or read, per store and class, so a write does not read
 * its counter first. Only written inside the store's write lock, so within this process it is
 * exact; a writer of another process (two browser tabs) makes a counter write conflict, and the
 * conflict path re-reads it. Reads (`count`) always read the stored counter.
 */
const known = new Map<string, Map<string, { count: number; rev: string }>>();

/**
 * How many active documents each class has, kept as one `_local` counter document per class
 * (`_local/~count/<Class>`). The pipeline, `stack.ingest` and purges write a class's counter in
 * the same bulkDocs call as its documents (PouchDB stores `_local` documents in the same
 * adapter transaction), so the count is exact after a crash too, and reading it is one get:
 * `countDocuments` never reads documents. Like the key index it does not replicate: each peer
 * counts what it stores. A store written before counters existed gets its counter built by one
 * scan of the class, the first time it is needed.
 */
export interface CountDoc {
  _id: string;
  _rev?: string;
  count: number;
}

const PREFIX = '_local/~count/';

export const countIdOf = (className: string): string => `${PREFIX}${className}`;
/** The class a counter document counts (countIdOf's inverse). */
export const classOfCountId = (id: string): string => id.slice(PREFIX.length);

/** Does this stored version count (present, not a tombstone, not soft-deleted)? */
export function counts(doc: { _deleted?: unknown; active?: unknown } | null | undefined): boolean {
  return !!doc && doc._deleted !== true && doc.active !== false;
}

/** Adds one document's change (before → after) to a batch's per-class deltas. */
export function addDelta(deltas: Map<string, number>, className: string | undefined, before: boolean, after: boolean): void {
  if (typeof className !== 'string' || before === after) return;
  deltas.set(className, (deltas.get(className) ?? 0) + (after ? 1 : -1));
}

export class ClassCounts {
  private readonly cache: Map<string, { count: number; rev: string }>;

  constructor(
    private readonly db: Database,
    private readonly lock: WriteLock,
  ) {
    const key = storeKeyOf(db);
    let cache = known.get(key);
    if (!cache) known.set(key, (cache = new Map()));
    this.cache = cache;
  }

  /** After a bulkDocs that carried counters: what is stored now (or forgotten, when a write failed). Inside the lock. */
  stored(counter: CountDoc, rev: string | null): void {
    const className = counter._id.slice(PREFIX.length);
    if (rev === null) this.cache.delete(className);
    else this.cache.set(className, { count: counter.count, rev });
  }

  /** The number of active documents of the class (one `_local` read; a scan the very first time). */
  async count(className: string): Promise<number> {
    const stored = await readRaw<CountDoc>(this.db, countIdOf(className));
    if (stored) return stored.count;
    return this.lock(async () => {
      const current = await this.current(className);
      if (current._rev === undefined) {
        const { rev } = await this.db.put({ ...current } as never);
        current._rev = rev;
        this.stored(current, rev);
      }
      return current.count;
    });
  }

  /** The class's count as this process knows it, read or built by a scan (nothing written: safe inside the write lock). */
  async known(className: string): Promise<number> {
    return (await this.current(className)).count;
  }

  /**
   * The counter documents to write with a batch: each class's stored count plus its delta.
   * Call inside the store's write lock, and write them in the batch's bulkDocs.
   */
  async entries(deltas: ReadonlyMap<string, number>, written = false): Promise<CountDoc[]> {
    const changed = [...deltas].filter(([, delta]) => delta !== 0);
    const docs = await Promise.all(changed.map(([className]) => this.current(className)));
    // a counter built by a scan after the documents were stored already counts them
    return docs.map((doc, i) => ({ ...doc, count: doc.count + (written && doc._rev === undefined ? 0 : changed[i][1]) }));
  }

  /**
   * Applies deltas in a call of their own: after a write whose counters could not go with it
   * (a counter another process changed meanwhile, a replicated revision whose outcome is only
   * known once stored). Retries on a conflict. Call inside the write lock.
   */
  async apply(deltas: ReadonlyMap<string, number>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const docs = await this.entries(deltas, true);
      if (docs.length === 0) return;
      const results = await this.db.bulkDocs(docs.map((d) => ({ ...d })) as never[]);
      const failed = new Map<string, number>();
      results.forEach((r, i) => {
        const ok = !('error' in r && r.error);
        this.stored(docs[i], ok ? (r as { rev: string }).rev : null);
        if (!ok) failed.set(docs[i]._id.slice(PREFIX.length), deltas.get(docs[i]._id.slice(PREFIX.length))!);
      });
      if (failed.size === 0 || attempt >= 5) return;
      deltas = failed;
    }
  }

  /** The stored counter (as this process last wrote it, else read), or one built now by counting the class (not yet stored: no `_rev`). */
  private async current(className: string): Promise<CountDoc> {
    const cached = this.cache.get(className);
    if (cached) return { _id: countIdOf(className), _rev: cached.rev, count: cached.count };
    const stored = await readRaw<CountDoc>(this.db, countIdOf(className));
    if (stored) {
      this.cache.set(className, { count: stored.count, rev: stored._rev! });
      return { _id: stored._id, _rev: stored._rev, count: stored.count };
    }
    let count = 0;
    for await (const page of rangePages(this.db, `${className}-`)) {
      for (const doc of page as Doc[]) if (doc['~class'] === className && counts(doc)) count++;
    }
    return { _id: countIdOf(className), count };
  }
}
