import type { ChangeFeed } from '../storage/change-feed.js';
import type { Clock } from '../contracts/clock.js';
import { isEngineClassName, type ClassModel } from '../contracts/model.js';
import { readRaw } from '../storage/raw-reads.js';
import type { Database } from '../storage/database.js';
import { toClassModel } from './model/attribute-shape.js';

/** Class documents have no `-` in their id (class names forbid it); documents always do. */
export function isClassDocId(id: string): boolean {
  return !id.includes('-') && !id.startsWith('_');
}

/**
 * Each peer's own class documents: the meta-classes (`class`, `domain`, `~self`) and the engine's
 * classes (`~Job`, `~Keyring`…). Every peer's engine writes its own from its system patches, so a
 * peer's copy is not application data: a docstack node answers it as stored and ignores it, and
 * the sync status counts it neither as pushed or pulled nor as pending.
 */
export function isEachPeersOwnClassDoc(id: string): boolean {
  return isClassDocId(id) && isEngineClassName(id);
}

/**
 * When the change feed is not running, a cached class is re-read (one get) at most this often,
 * so a class changed by another writer of the store (another instance, a replication) is
 * enforced within this delay (by the stack's clock). While the feed runs, invalidation is exact.
 */
export const VERIFY_AFTER_MS = 1000;

interface Entry {
  model: ClassModel;
  checkedAt: number;
}

/** The revision number of a `N-hash` revision, for picking the newer of two models. */
export function revNumber(rev: string | undefined): number {
  return rev ? Number.parseInt(rev, 10) || 0 : 0;
}

/**
 * Class models by name, so the write path does not read the class document per draft. Kept
 * fresh by this stack's own class writes (set), by the change feed while it runs (passive
 * listener), and otherwise by a cheap re-read once the entry is older than VERIFY_AFTER_MS.
 */
export class ClassCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<ClassModel | null>>();
  /** bumped on every invalidation, so a read that started before it does not cache its stale result */
  private generation = 0;
  private readonly stop: () => void;

  constructor(
    private readonly db: Database,
    private readonly feed: ChangeFeed,
    private readonly clock: Clock,
  ) {
    this.stop = feed.subscribe(
      (change) => {
        if (!isClassDocId(change.id)) return;
        const cached = this.entries.get(change.id);
        if (!cached || cached.model._rev !== change.rev) this.invalidate(change.id);
      },
      { passive: true },
    );
  }

  /** The stored class model (active or not), or null when there is no such class document. */
  async get(name: string): Promise<ClassModel | null> {
    const fresh = this.fresh(name);
    if (fresh) return fresh;
    let pending = this.loading.get(name);
    if (!pending) {
      const started: Promise<ClassModel | null> = this.read(name).finally(() => {
        if (this.loading.get(name) === started) this.loading.delete(name);
      });
      pending = started;
      this.loading.set(name, pending);
    }
    return pending;
  }

  /** The cached model when it is fresh (what `get` would answer without I/O), else undefined: no await on the read path. */
  fresh(name: string): ClassModel | undefined {
    const entry = this.entries.get(name);
    return entry && this.isFresh(entry) ? entry.model : undefined;
  }

  /** The cached model without any I/O (possibly stale), or undefined. */
  peek(name: string): ClassModel | undefined {
    return this.entries.get(name)?.model;
  }

  private isFresh(entry: Entry): boolean {
    return this.trusts(entry.checkedAt);
  }

  /**
   * Whether something read at `checkedAt` (the stack's clock) may still be trusted by this
   * cache's rule: while the feed runs, a read after it started is invalidated exactly by it;
   * otherwise for VERIFY_AFTER_MS. Other caches of stored documents follow the same rule
   * (the validation plugin's foreign-key targets).
   */
  trusts(checkedAt: number): boolean {
    if (this.feed.running && checkedAt > this.feed.startedAt) return true;
    return this.clock.now() - checkedAt < VERIFY_AFTER_MS;
  }

  private async read(name: string): Promise<ClassModel | null> {
    const startedAt = this.generation;
    const checkedAt = this.clock.now();
    const doc = await readRaw<ClassModel>(this.db, name);
    if (!doc) return null;
    // a class document in either attribute shape, as the flat model readers use
    if (startedAt !== this.generation) return toClassModel(doc);
    const previous = this.entries.get(name);
    // same revision: keep the same object, so validators compiled for it stay cached
    const model = previous && previous.model._rev === doc._rev ? previous.model : toClassModel(doc);
    this.entries.set(name, { model, checkedAt });
    return model;
  }

  /** Records a class document this stack just wrote. */
  set(model: ClassModel): void {
    const current = this.entries.get(model._id);
    if (current && revNumber(current.model._rev) > revNumber(model._rev)) return;
    this.entries.set(model._id, { model, checkedAt: this.clock.now() });
  }

  invalidate(name: string): void {
    this.generation += 1;
    this.loading.delete(name);
    this.entries.delete(name);
  }

  close(): void {
    this.stop();
    this.entries.clear();
  }
}
