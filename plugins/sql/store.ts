import type { Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';

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
 * Every raw storage access of the sql plugin, in one place (the kernel's storage is about to
 * become a narrower facade; porting this file ports the plugin). Documents come back raw, as
 * stored: callers run `afterRead` themselves where a reader sees them.
 */
export class SqlStore {
  constructor(private readonly stack: ClientStack) {}

  private get db() {
    return this.stack.db;
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

  async getDoc(id: string): Promise<Doc | null> {
    try {
      return (await this.db.get(id)) as unknown as Doc;
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
  }

  /** Documents whose ids lie in [start, end] (inclusive), in id order, a page at a time. */
  async *range(start: string, end: string): AsyncGenerator<Doc[]> {
    let startkey = start;
    let skip = 0;
    for (;;) {
      const page = await this.db.allDocs({ startkey, endkey: end, include_docs: true, limit: PAGE, skip });
      if (page.rows.length === 0) return;
      yield page.rows.map((row) => row.doc as unknown as Doc).filter(Boolean);
      if (page.rows.length < PAGE) return;
      startkey = page.rows[page.rows.length - 1].id;
      skip = 1;
    }
  }

  /** The store's current update sequence. */
  async updateSeq(): Promise<Seq> {
    return (await this.db.info()).update_seq;
  }

  /** The ids changed since a sequence (winning revisions), page by page, with the sequence reached. */
  async *changesSince(since: Seq): AsyncGenerator<{ changes: ChangedDoc[]; seq: Seq }> {
    let from = since;
    for (;;) {
      const page = await this.db.changes({ since: from, limit: CHANGES_PAGE, return_docs: true });
      const changes = page.results.map((c) => ({ id: c.id, rev: c.changes[0]?.rev ?? '', deleted: c.deleted === true }));
      from = page.last_seq;
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
      await this.db.put({ ...body, _id: `_local/${id}`, ...(rev ? { _rev: rev } : {}) } as never);
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
      await this.db.remove(`_local/${id}`, doc._rev);
    } catch (err) {
      if ((err as { status?: number }).status !== 404 && (err as { status?: number }).status !== 409) throw err;
    }
  }
}
