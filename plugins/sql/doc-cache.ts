import type { Doc } from '../../index.js';

/**
 * Stored documents by id and revision, the most recently used kept (a bounded LRU). A revision
 * names one content for good, and the index gives the current revision of every document it
 * names, so a hit is exact: an index read that hits the cache costs no storage read. Raw
 * documents (as stored, encrypted values sealed) — readers still run afterRead on them.
 */
export class DocCache {
  private readonly docs = new Map<string, Doc>();

  constructor(private readonly capacity: number) {}

  get(id: string, rev: string): Doc | undefined {
    const doc = this.docs.get(id);
    if (!doc || doc._rev !== rev) return undefined;
    this.docs.delete(id); // most recently used last
    this.docs.set(id, doc);
    return doc;
  }

  set(doc: Doc): void {
    if (this.capacity <= 0) return;
    this.docs.delete(doc._id);
    this.docs.set(doc._id, doc);
    if (this.docs.size > this.capacity) this.docs.delete(this.docs.keys().next().value!);
  }

  clear(): void {
    this.docs.clear();
  }
}
