import type { ChangeFeed } from './change-feed.js';
import type { ClassModel } from './model/types.js';
import type { Database } from './storage.js';

/** Class documents have no `-` in their id (class names forbid it); documents always do. */
export function isClassDocId(id: string): boolean {
  return !id.includes('-') && !id.startsWith('_');
}

/**
 * Class models by name, read once and kept exact by the stack's change feed, so the write
 * path does not read the class document for every draft.
 */
export class ClassCache {
  private readonly models = new Map<string, ClassModel>();
  private readonly loading = new Map<string, Promise<ClassModel | null>>();
  /** bumped on every invalidation, so a read that started before it does not cache its stale result */
  private generation = 0;
  private readonly stop: () => void;

  constructor(
    private readonly db: Database,
    feed: ChangeFeed,
  ) {
    this.stop = feed.subscribe((change) => {
      if (!isClassDocId(change.id)) return;
      const cached = this.models.get(change.id);
      if (!cached || cached._rev !== change.rev) this.invalidate(change.id);
    });
  }

  /** The stored class model (active or not), or null when there is no such class document. */
  async get(name: string): Promise<ClassModel | null> {
    const cached = this.models.get(name);
    if (cached) return cached;
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

  private async read(name: string): Promise<ClassModel | null> {
    const startedAt = this.generation;
    try {
      const doc = (await this.db.get(name)) as unknown as ClassModel;
      if (startedAt === this.generation) this.models.set(name, doc);
      return doc;
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
  }

  set(model: ClassModel): void {
    this.models.set(model._id, model);
  }

  invalidate(name: string): void {
    this.generation += 1;
    this.loading.delete(name);
    this.models.delete(name);
  }

  close(): void {
    this.stop();
    this.models.clear();
  }
}
