import type { ClientStack, Doc } from '../../index.js';

/** A sequence of the store's changes feed (a number on leveldb and memory). */
export type Seq = number | string;

export interface ChangedDoc {
  id: string;
  rev: string;
  deleted: boolean;
}

const PAGE = 500;
const IN_FLIGHT = 64;
const CHANGES_PAGE = 1000;

/**
 * Every storage access of the sql plugin, in one place, through the kernel's storage facade.
 * Documents come back raw, as stored: callers run `afterRead` themselves where a reader sees them.
 */
export class SqlStore {
  constructor(private readonly stack: ClientStack) {}

  private get storage() {
    return this.stack.storage;
  }

  /**
   * Documents by id, missing ones left out. Parallel gets, not `allDocs({ keys })`: measured on
   * 1,000 ids, ~5× faster on memory and ~4× on leveldb (PouchDB's keys path reads serially).
   */
  async getDocs(ids: readonly string[]): Promise<Doc[]> {
    const out: Doc[] = [];
    for (let start = 0; start < ids.length; start += IN_FLIGHT) {
      const chunk = ids.slice(start, start + IN_FLIGHT);
      const docs = await Promise.all(chunk.map((id) => this.getDoc(id)));
      for (const doc of docs) if (doc) out.push(doc);
    }
    return out;
  }

  getDoc(id: string): Promise<Doc | null> {
    return this.storage.get<Doc>(id);
  }

  /** Documents whose ids lie in [start, end] (inclusive), in id order, a page at a time. */
  async *range(start: string, end: string): AsyncGenerator<Doc[]> {
    let startkey = start;
    let skip = 0;
    for (;;) {
      const rows = await this.storage.range({ start: startkey, end, includeDocs: true, limit: PAGE, skip });
      if (rows.length === 0) return;
      yield rows.map((row) => row.doc).filter(Boolean);
      if (rows.length < PAGE) return;
      startkey = rows[rows.length - 1].id;
      skip = 1;
    }
  }

  /** A class's documents (its id range and the ids given outside it), in id order, a page at a time. */
  classPages(className: string): AsyncGenerator<Doc[]> {
    return this.storage.classPages(className, { size: PAGE });
  }

  /** The ids a class's documents were given outside its `<Class>-…` range. */
  outsideIds(className: string): Promise<string[]> {
    return this.storage.outsideIds(className);
  }

  /** The store's current update sequence. */
  async updateSeq(): Promise<Seq> {
    return (await this.storage.info()).updateSeq;
  }

  /** The ids changed since a sequence (winning revisions), page by page, with the sequence reached. */
  async *changesSince(since: Seq): AsyncGenerator<{ changes: ChangedDoc[]; seq: Seq }> {
    let from = since;
    for (;;) {
      const page = await this.storage.changes({ since: from, limit: CHANGES_PAGE });
      const changes = page.results.map((c) => ({ id: c.id, rev: c.rev, deleted: c.deleted }));
      from = page.lastSeq;
      yield { changes, seq: from };
      if (page.results.length < CHANGES_PAGE) return;
    }
  }

  /** A `_local` document (not replicated: an index is each peer's own), or null. */
  async readLocal<T>(id: string): Promise<(T & { _rev?: string }) | null> {
    return (await this.getDoc(`_local/${id}`)) as unknown as (T & { _rev?: string }) | null;
  }

  /** Writes a `_local` document; false when another writer got there first (409). */
  async writeLocal(id: string, body: object, rev?: string): Promise<boolean> {
    try {
      await this.storage.put({ ...body, _id: `_local/${id}`, ...(rev ? { _rev: rev } : {}) });
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 409) return false;
      throw err;
    }
  }

  async removeLocal(id: string): Promise<void> {
    const doc = await this.readLocal<object>(id);
    if (!doc?._rev) return;
    try {
      await this.storage.remove(`_local/${id}`, doc._rev);
    } catch (err) {
      if ((err as { status?: number }).status !== 404 && (err as { status?: number }).status !== 409) throw err;
    }
  }
}
