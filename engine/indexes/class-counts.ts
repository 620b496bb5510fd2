import { readRaw } from '../../storage/raw-reads.js';
import { classPages } from '../../storage/class-ids.js';
import type { Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { storeKeyOf, type WriteLock } from '../../storage/write-lock.js';
import { holdWriter, liveWriters, newWriterId } from './count-writers.js';

/**
 * How many active documents each class has: kept in memory per store, exact within the process,
 * and stored as one `_local` counter document per class (`_local/~count/<Class>`) without a
 * storage write per document write (docs/storage.md, "Class counters"):
 *
 * - A write adds its change to the class's count in memory. Only the first change after the
 *   counter was last persisted carries the counter document, in the same bulkDocs call as the
 *   documents: its count, with this writer's id listed as `dirty` (it holds changes not stored).
 * - A flush stores each count and takes the id off the list, in a call of its own: FLUSH_AFTER_MS
 *   after the first change not persisted (a timer that does not keep Node running), and when the
 *   stack closes. Counter writes add deltas: a flush whose counter another process moved (409)
 *   reads it again and adds this process's pending change to it.
 * - A counter read that lists a writer that is gone (a crash, a tab closed mid-write) is not
 *   trusted: the class is counted again by one scan, as a store written before counters existed
 *   gets its counter the first time it is needed. While another live writer is listed too, the
 *   scan waits (it would count that writer's pending changes twice) and the stored count is used.
 *
 * Like the key index it does not replicate: each peer counts what it stores.
 */
export interface CountDoc {
  _id: string;
  _rev?: string;
  count: number;
  /** writers holding changes of the class that this count does not include yet */
  dirty?: string[];
}

/** How long a change may stay only in memory before it is persisted on its own. */
export const FLUSH_AFTER_MS = 500;

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

/** One class's count in this process: `base + pending`. */
interface Counter {
  /** the count the stored counter document holds (as last read or written here), or one a scan found */
  base: number;
  /** this process's changes that `base` does not include */
  pending: number;
  /** the stored counter document's revision `base` came with (none stored: undefined) */
  rev?: string;
  /** other writers the stored document lists as dirty (kept when this process rewrites it) */
  others: string[];
  /** the stored document lists this writer: `pending` is safe across a crash (the class gets counted again) */
  marked: boolean;
  /** the stored document holds `base` and `rev` (false after a scan, or a counter write that failed) */
  synced: boolean;
}

/** The counters of one store in this process, shared by the stacks open on it. */
interface StoreCounts {
  writer: string;
  counters: Map<string, Counter>;
  /** the open ClassCounts of this store: the flush timer writes through the first */
  users: ClassCounts[];
  timer?: ReturnType<typeof setTimeout>;
  held: Promise<void>;
  release: () => void;
}

const stores = new Map<string, StoreCounts>();

export class ClassCounts {
  private readonly store: StoreCounts;
  private readonly key: string;

  constructor(
    private readonly db: Database,
    private readonly lock: WriteLock,
  ) {
    this.key = storeKeyOf(db);
    let store = stores.get(this.key);
    if (!store) {
      const writer = newWriterId();
      stores.set(this.key, (store = { writer, counters: new Map(), users: [], ...holdWriter(writer) }));
    }
    store.users.push(this);
    this.store = store;
  }

  /** The number of active documents of the class: one `_local` read, a scan the first time or after a crash. */
  async count(className: string): Promise<number> {
    const stored = await readRaw<CountDoc>(this.db, countIdOf(className));
    const counter = this.store.counters.get(className);
    if (counter && stored && stored._rev === counter.rev) return counter.base + counter.pending;
    if (!counter && stored && !stored.dirty?.length) return stored.count;
    // first read here, another process moved it, or a writer is listed: settled inside the lock
    return this.lock(async () => {
      const counter = await this.refresh(className);
      if (!counter.synced) await this.flush([className]);
      return counter.base + counter.pending;
    });
  }

  /** The class's count as this process knows it, read or built by a scan (nothing written: safe inside the write lock). */
  async known(className: string): Promise<number> {
    const [counter] = await this.load(className);
    return counter.base + counter.pending;
  }

  /**
   * The counter documents a batch must carry for these deltas (inside the write lock, before its
   * bulkDocs): only for classes whose counter does not list this writer yet. Nothing changes here;
   * `written` records the call.
   */
  entries(deltas: ReadonlyMap<string, number>): CountDoc[] | Promise<CountDoc[]> {
    // every counter already known (any write after the first): answered at once, no promise
    const docs: CountDoc[] = [];
    for (const [className, delta] of deltas) {
      if (delta === 0) continue;
      const counter = this.store.counters.get(className);
      if (!counter) return this.load(className).then(() => this.entries(deltas));
      if (!counter.marked || !counter.synced) docs.push(this.docOf(className, counter, delta, true));
    }
    return docs;
  }

  /**
   * A batch's documents were stored: adds its deltas to the counts, and records what became of
   * the counter documents it carried (`entries`): each one's new revision, or null when its write
   * failed (`apply` then persists the count in a call of its own). Inside the write lock.
   */
  written(deltas: ReadonlyMap<string, number>, carried: readonly CountDoc[], revs: readonly (string | null)[]): void {
    for (const [className, delta] of deltas) {
      const counter = this.store.counters.get(className);
      if (counter) counter.pending += delta;
    }
    carried.forEach((doc, i) => {
      const counter = this.store.counters.get(classOfCountId(doc._id));
      if (!counter) return;
      const rev = revs[i];
      if (rev === null) counter.synced = counter.marked = false;
      else this.settle(counter, doc, rev);
    });
    this.schedule();
  }

  /**
   * Adds changes of documents already stored (a correction after a write: documents that failed,
   * revisions settled once stored, an undone write), then persists every count a crash would
   * lose (not marked dirty), in a call of its own. Inside the write lock.
   */
  apply(deltas?: ReadonlyMap<string, number>): void | Promise<void> {
    // the usual write: counters known, each marked dirty already — nothing to read, nothing to store, no promise
    if (deltas) {
      for (const [className, delta] of deltas) {
        if (delta !== 0 && !this.store.counters.has(className)) return this.applyLoaded(deltas);
      }
      for (const [className, delta] of deltas) if (delta !== 0) this.store.counters.get(className)!.pending += delta;
    }
    return this.persistUnsafe();
  }

  private async applyLoaded(deltas: ReadonlyMap<string, number>): Promise<void> {
    for (const [className, delta] of deltas) {
      if (delta === 0) continue;
      const [counter, scanned] = await this.load(className);
      // a count built by a scan now already counts the stored documents
      if (!scanned) counter.pending += delta;
    }
    await this.persistUnsafe();
  }

  /** Persists every count a crash would lose (not marked dirty), in a call of its own; then the flush timer. */
  private persistUnsafe(): void | Promise<void> {
    let unsafe: string[] | undefined;
    for (const [name, c] of this.store.counters) if (!c.synced || (c.pending !== 0 && !c.marked)) (unsafe ??= []).push(name);
    if (unsafe) return this.flush(unsafe).then(() => this.schedule());
    this.schedule();
  }

  /**
   * Stores the counts (all, or these classes') that have changes not persisted, taking this
   * writer off their dirty lists; on a conflict (another process wrote the counter) reads it
   * again and adds this process's changes to it. Inside the write lock.
   */
  async flush(classNames?: readonly string[]): Promise<void> {
    let names = classNames ?? [...this.store.counters.keys()];
    for (let attempt = 0; ; attempt++) {
      const due = names.filter((name) => {
        const c = this.store.counters.get(name);
        return !!c && (c.pending !== 0 || c.marked || !c.synced);
      });
      if (due.length === 0) return;
      const docs = due.map((name) => this.docOf(name, this.store.counters.get(name)!, 0, false));
      const results = await this.db.bulkDocs(docs.map((d) => ({ ...d })) as never[]);
      const conflicts: string[] = [];
      results.forEach((result, i) => {
        if ('error' in result && result.error) conflicts.push(due[i]);
        else this.settle(this.store.counters.get(due[i])!, docs[i], (result as { rev: string }).rev);
      });
      if (conflicts.length === 0) return;
      // still moving (other processes writing): left to the next flush, the count stays exact here
      if (attempt >= 5) return this.schedule();
      for (const name of conflicts) await this.refresh(name);
      names = conflicts;
    }
  }

  /** The stack is closing: its counts are persisted; the last stack of the store forgets them. */
  async close(): Promise<void> {
    const store = this.store;
    try {
      await this.lock(() => this.flush());
    } catch {
      // not stored (storage full, closed under it): the counters keep this writer's mark, the next open counts those classes again
    } finally {
      store.users = store.users.filter((u) => u !== this);
      if (store.users.length === 0) {
        clearTimeout(store.timer);
        store.release();
        if (stores.get(this.key) === store) stores.delete(this.key);
      }
    }
  }

  /** A flush FLUSH_AFTER_MS from now, unless one is due already or nothing waits for one. */
  private schedule(): void {
    const store = this.store;
    if (store.timer || !this.anyUnflushed()) return;
    store.timer = setTimeout(() => {
      store.timer = undefined;
      const host = store.users[0];
      // a failed flush leaves this writer listed dirty: the next open counts those classes again
      if (host) void host.lock(() => host.flush()).catch(() => undefined);
    }, FLUSH_AFTER_MS);
    (store.timer as { unref?: () => void }).unref?.();
  }

  private anyUnflushed(): boolean {
    for (const c of this.store.counters.values()) if (c.pending !== 0 || c.marked || !c.synced) return true;
    return false;
  }

  private docOf(className: string, counter: Counter, delta: number, mark: boolean): CountDoc {
    const dirty = mark ? [...counter.others, this.store.writer] : counter.others;
    return {
      _id: countIdOf(className),
      ...(counter.rev === undefined ? {} : { _rev: counter.rev }),
      count: counter.base + counter.pending + delta,
      ...(dirty.length > 0 ? { dirty } : {}),
    };
  }

  /** A counter document this process wrote is stored at `rev`. */
  private settle(counter: Counter, doc: CountDoc, rev: string): void {
    counter.pending -= doc.count - counter.base;
    counter.base = doc.count;
    counter.rev = rev;
    counter.marked = doc.dirty?.includes(this.store.writer) ?? false;
    counter.others = (doc.dirty ?? []).filter((w) => w !== this.store.writer);
    counter.synced = true;
  }

  /** The class's counter, read (or counted) the first time; `scanned` when counted now. Inside the write lock. */
  private async load(className: string): Promise<[Counter, boolean]> {
    const known = this.store.counters.get(className);
    if (known) return [known, false];
    await this.store.held; // this writer's id is listed only once others can see it alive
    return this.adopt(className, await readRaw<CountDoc>(this.db, countIdOf(className)));
  }

  /** The class's counter brought up to the stored document (another process may have moved it). Inside the write lock. */
  private async refresh(className: string): Promise<Counter> {
    await this.store.held;
    const stored = await readRaw<CountDoc>(this.db, countIdOf(className));
    const counter = this.store.counters.get(className);
    if (counter && (stored?._rev ?? undefined) === counter.rev) return counter;
    return (await this.adopt(className, stored, counter))[0];
  }

  /**
   * Takes the stored counter document as the class's base, keeping this process's pending
   * changes — unless it lists a writer that is gone (or there is none): then the class is
   * counted by a scan, which sees every stored document, this process's pending ones included.
   */
  private async adopt(className: string, stored: CountDoc | null, previous?: Counter): Promise<[Counter, boolean]> {
    const writer = this.store.writer;
    const listed = (stored?.dirty ?? []).filter((w) => w !== writer);
    let gone: string[] = [];
    if (listed.length > 0) {
      const live = await liveWriters();
      gone = listed.filter((w) => !live?.has(w));
    }
    // a live writer listed beside the gone ones: the scan waits until it has persisted its changes
    const trusted = stored && (gone.length === 0 || gone.length < listed.length);
    const counter: Counter = trusted
      ? { base: stored.count, pending: previous?.pending ?? 0, rev: stored._rev, others: listed, marked: stored.dirty?.includes(writer) ?? false, synced: true }
      : { base: await this.scan(className), pending: 0, rev: stored?._rev, others: [], marked: false, synced: false };
    this.store.counters.set(className, counter);
    this.schedule();
    return [counter, !trusted];
  }

  private async scan(className: string): Promise<number> {
    let count = 0;
    for await (const page of classPages(this.db, className)) {
      for (const doc of page as Doc[]) if (doc['~class'] === className && counts(doc)) count++;
    }
    return count;
  }
}
