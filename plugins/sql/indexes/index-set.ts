import { isIndexed } from '../catalog.js';
import type { SqlStore } from '../store.js';
import { ClassIndex } from './class-index.js';
import { dropSnapshot, loadSnapshot, saveSnapshot } from './snapshot.js';
import type { ClassModel, ClientStack, Doc } from '../../../index.js';

/** The `sql:index` event on the stack while an index is (re)built from the class's documents. */
export interface IndexProgress {
  className: string;
  attributes: string[];
  phase: 'building' | 'built';
  /** documents read so far */
  done: number;
}

export const indexedAttributes = (model: ClassModel): string[] => Object.values(model.schema).filter(isIndexed).map((a) => a.name).sort();

/**
 * When an index is saved: on close, and a few seconds after it has gathered this many changes.
 * Saving less often costs nothing in exactness (a reopened index catches up from the changes
 * feed, ~30 µs a document); saving often would rewrite every entry of a large class each time.
 */
const SAVE_AFTER_CHANGES = 10_000;
const SAVE_DELAY_MS = 5000;

/**
 * The secondary indexes of a stack, one ClassIndex per class with `indexed: true` attributes,
 * loaded on first use (from its snapshot, else rebuilt from the class's documents with
 * `sql:index` progress events). Kept exact two ways:
 * - `written`: the afterWrite hook, for local writes and for documents a peer sent (ingest);
 * - `catchUp`: before every use, the store's changes since the index's sequence — writes by
 *   another instance of the store, purges, and anything between a write and its afterWrite
 *   (a crash) — skipping revisions the index already has. Idle, that is one empty read.
 */
export class IndexSet {
  private readonly loaded = new Map<string, Promise<ClassIndex>>();
  private readonly catching = new Map<ClassIndex, Promise<void>>();
  /** changes applied to each index since it was last saved */
  private readonly dirty = new Map<ClassIndex, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly stack: ClientStack,
    private readonly store: SqlStore,
  ) {}

  /** The class's index, caught up with the store; null when no attribute of the class is indexed. */
  async ready(model: ClassModel): Promise<ClassIndex | null> {
    const attributes = indexedAttributes(model);
    if (attributes.length === 0) return null;
    let loading = this.loaded.get(model.name);
    if (loading && !same((await loading).attributes, attributes)) loading = undefined;
    if (!loading) {
      loading = this.open(model.name, attributes);
      this.loaded.set(model.name, loading);
      loading.catch(() => this.loaded.delete(model.name));
    }
    const index = await loading;
    await this.catchUp(index);
    return index;
  }

  /** Drops and rebuilds a class's index now (progress on `sql:index`). */
  async rebuild(model: ClassModel): Promise<ClassIndex | null> {
    this.loaded.delete(model.name);
    await dropSnapshot(this.store, model.name);
    return this.ready(model);
  }

  /** afterWrite: a document of the class was stored, here or by a peer (ingest). */
  async written(doc: Doc, model: ClassModel): Promise<void> {
    const loading = this.loaded.get(model.name);
    if (!loading) return; // not in use: its snapshot plus the changes since cover this write
    const index = await loading;
    if (!same(index.attributes, indexedAttributes(model))) {
      this.loaded.delete(model.name); // the indexed attributes changed: rebuilt on next use
      return;
    }
    index.set(doc._id, index.entryOf(doc));
    this.markDirty(index, 1);
  }

  private async open(className: string, attributes: string[]): Promise<ClassIndex> {
    return (await loadSnapshot(this.store, className, attributes)) ?? this.build(className, attributes);
  }

  private async build(className: string, attributes: string[]): Promise<ClassIndex> {
    const index = new ClassIndex(className, attributes, await this.store.updateSeq());
    const progress = (phase: IndexProgress['phase'], done: number) => this.stack.emit('sql:index', { className, attributes, phase, done } satisfies IndexProgress);
    let done = 0;
    progress('building', 0);
    for await (const page of this.store.classPages(className)) {
      for (const doc of page) if (doc['~class'] === className) index.set(doc._id, index.entryOf(doc));
      done += page.length;
      progress('building', done);
    }
    progress('built', done);
    await saveSnapshot(this.store, index);
    return index;
  }

  private catchUp(index: ClassIndex): Promise<void> {
    let pending = this.catching.get(index);
    if (!pending) {
      pending = this.applyChanges(index).finally(() => this.catching.delete(index));
      this.catching.set(index, pending);
    }
    return pending;
  }

  private async applyChanges(index: ClassIndex): Promise<void> {
    const prefix = `${index.className}-`;
    // the class's ids outside its range (a document created with a caller's id), and any id the index holds (one purged since)
    const outside = new Set(await this.store.outsideIds(index.className));
    let changed = 0;
    for await (const { changes, seq } of this.store.changesSince(index.seq)) {
      const stale = changes.filter((c) => (c.id.startsWith(prefix) || outside.has(c.id) || index.entries.has(c.id)) && index.entries.get(c.id)?.rev !== c.rev);
      for (const c of stale) if (c.deleted) index.set(c.id, null);
      const docs = await this.store.getDocs(stale.filter((c) => !c.deleted).map((c) => c.id));
      for (const doc of docs) index.set(doc._id, doc['~class'] === index.className ? index.entryOf(doc) : null);
      changed += stale.length;
      index.seq = seq;
    }
    if (changed > 0) this.markDirty(index, changed);
  }

  private markDirty(index: ClassIndex, changes: number): void {
    const count = (this.dirty.get(index) ?? 0) + changes;
    this.dirty.set(index, count);
    if (this.timer || count < SAVE_AFTER_CHANGES) return;
    this.timer = setTimeout(() => void this.flush().catch(() => undefined), SAVE_DELAY_MS);
    this.timer.unref?.();
  }

  /** Saves every index changed since its last save (when the stack closes, and after many changes). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const indexes = [...this.dirty.keys()];
    this.dirty.clear();
    for (const index of indexes) await saveSnapshot(this.store, index);
  }
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
