import { isClassDocId } from '../class-cache.js';
import { CLASS_META, SELF_META } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from '../../storage/raw-reads.js';
import type { WriteLock } from '../../storage/write-lock.js';

const INDEX_ID = '_local/~index/class-names';
const CHANGES_PAGE = 1000;
/**
 * A write that finds at most this many changes it cannot account for (another writer's: a
 * replication, a purge, another stack on the store) reads them before it stores, so its own
 * documents can be counted as seen; a larger gap is left to the next listing.
 */
const INLINE_GAP = 100;

interface ClassNamesDoc {
  _id: string;
  _rev?: string;
  /** update sequence the index has seen */
  seq: number | string;
  names: string[];
}

/** The index in memory: every change up to `seq` is reflected in `names`. */
interface State {
  seq: number | string;
  names: Set<string>;
  /** the stored checkpoint's revision (undefined: none stored, or unknown after a conflict) */
  rev: string | undefined;
  /** the sequence the stored checkpoint holds */
  storedSeq: number | string | null;
}

/** What a write tells the index about one of its stored documents. */
export interface WrittenDoc {
  _id: string;
  _deleted?: unknown;
  '~class'?: unknown;
  active?: unknown;
}

const isActiveClassDoc = (doc: WrittenDoc | null | undefined): boolean =>
  !!doc && doc._deleted !== true && (doc['~class'] === CLASS_META || doc['~class'] === SELF_META) && doc.active !== false;

const sameSeq = (a: number | string, b: number | string): boolean => String(a) === String(b);

/**
 * The names of the class documents, kept in a `_local` checkpoint (`seq`, `names`). Class
 * documents cannot be range-scanned (their `_id` is the bare class name), and a scan of the
 * whole store to list them would grow with the documents, so the index follows the store's
 * update sequence:
 * - the pipeline's own writes move it without reading anything back (`classNamesPart`): the
 *   update sequence read before and after each bulkDocs call proves the call's documents are
 *   the only changes in between, and the pipeline knows which of them are class documents;
 *   the checkpoint goes with the next call's bulkDocs (or, after a large write, is put at once),
 *   so after a crash at most the last few small writes are read again;
 * - every other change (a replication, a purge, another stack or tab on the store) is read from
 *   the changes feed since the checkpoint on the next listing, or by the next write when it is
 *   small: a class document arriving any way is seen, and each foreign change is read once.
 */
export class ClassNamesIndex {
  /** the catch-up under way, and the one queued after it for callers that came during it */
  private running: Promise<string[]> | null = null;
  private queued: Promise<string[]> | null = null;
  private state: State | null = null;
  /** how many changes this index has read from the changes feed (tests assert on it) */
  changesRead = 0;

  constructor(
    private readonly db: Database,
    private readonly lock: WriteLock,
  ) {}

  /** Names of the class documents that exist and are active (meta-classes included). */
  list(): Promise<string[]> {
    if (!this.running) return this.start();
    // one under way may have read the changes before this call's: the callers that come during
    // it share the next one
    this.queued ??= this.running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.queued = null;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<string[]> {
    const run = this.catchUp().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /** The store's update sequence now (a number on every adapter a stack opens; NaN otherwise). */
  async updateSeq(): Promise<number> {
    return Number((await this.db.info()).update_seq);
  }

  /**
   * Inside the write lock, before a bulkDocs call whose documents will move the update sequence
   * from `seq`: true when the index accounts for every change up to `seq` (then the call's
   * documents can be added with `written`). Reads a small gap of foreign changes first.
   */
  async accountsFor(seq: number): Promise<boolean> {
    const state = await this.load();
    if (!Number.isFinite(seq)) return false;
    const gap = seq - Number(state.seq);
    if (gap === 0) return true;
    if (!(gap > 0 && gap <= INLINE_GAP)) {
      if (gap > INLINE_GAP) void this.list().catch(() => undefined); // read the gap once, off this write
      return false;
    }
    const read = await this.readChanges(state.seq);
    if (!sameSeq(read.seq, seq)) return false;
    this.apply(state, read.seq, read.classDocs);
    return true;
  }

  /**
   * Inside the write lock: the documents stored between update sequences `from` (which
   * `accountsFor` accepted) and `to`. When they are exactly the changes in between (the
   * sequence moved by their number), the index moves to `to` without reading them back.
   */
  written(from: number, to: number, docs: readonly WrittenDoc[]): void {
    const state = this.state;
    if (!state || !sameSeq(state.seq, from) || to - from !== docs.length) return;
    const classDocs = new Map<string, WrittenDoc>();
    for (const doc of docs) if (isClassDocId(doc._id)) classDocs.set(doc._id, doc);
    this.apply(state, to, classDocs);
  }

  /** The checkpoint to store with the next bulkDocs call, when the index moved past the stored one. */
  checkpoint(): ClassNamesDoc | null {
    const state = this.state;
    if (!state || (state.storedSeq !== null && sameSeq(state.storedSeq, state.seq))) return null;
    return { _id: INDEX_ID, ...(state.rev ? { _rev: state.rev } : {}), seq: state.seq, names: [...state.names].sort() };
  }

  /** The outcome of storing `doc` (a checkpoint): its revision, or null when it was refused. */
  stored(doc: ClassNamesDoc, rev: string | null): void {
    if (!this.state) return;
    if (rev === null) this.state.rev = undefined; // another writer's checkpoint: re-read before the next
    else {
      this.state.rev = rev;
      this.state.storedSeq = doc.seq;
    }
  }

  /** Inside the write lock: stores the checkpoint now, when it moved (after a large write, at close). */
  async persist(): Promise<void> {
    if (this.state && this.state.rev === undefined && this.state.storedSeq !== null) {
      this.state.rev = (await readRaw<ClassNamesDoc>(this.db, INDEX_ID))?._rev;
    }
    const doc = this.checkpoint();
    if (!doc) return;
    try {
      const { rev } = await this.db.put(doc as never);
      this.stored(doc, rev);
    } catch (err) {
      // another stack (tab) on the store stored its own checkpoint: as exact as ours, at its sequence
      if ((err as { status?: number }).status !== 409) throw err;
      this.stored(doc, null);
    }
  }

  private async catchUp(): Promise<string[]> {
    for (;;) {
      const state = await this.load();
      const from = state.seq;
      // nothing written since (an open after a clean close, a listing after this stack's writes): no changes to read
      const current = state.storedSeq !== null && sameSeq(state.storedSeq, from) && sameSeq(await this.updateSeq(), from);
      if (current && this.state === state && sameSeq(state.seq, from)) return [...state.names].sort();
      const read = await this.readChanges(from);
      const done = await this.lock(async () => {
        // a write moved the index meanwhile: read again from there (a short read)
        if (!sameSeq(state.seq, from) || this.state !== state) return false;
        this.apply(state, read.seq, read.classDocs);
        if (!sameSeq(read.seq, from) || state.storedSeq === null || !sameSeq(state.storedSeq, state.seq)) await this.persist();
        return true;
      });
      if (done) return [...state.names].sort();
    }
  }

  /** The class documents among the changes since `since` (the latest version of each), and the sequence read to. */
  private async readChanges(since: number | string): Promise<{ seq: number | string; classDocs: Map<string, WrittenDoc | null> }> {
    // page through the changes: after a large import there may be millions of them
    const candidates = new Set<string>();
    for (;;) {
      const page = await this.db.changes({ since, limit: CHANGES_PAGE, return_docs: true });
      this.changesRead += page.results.length;
      for (const change of page.results) if (isClassDocId(change.id)) candidates.add(change.id);
      since = page.last_seq;
      if (page.results.length < CHANGES_PAGE) break;
    }
    const classDocs = new Map<string, WrittenDoc | null>();
    if (candidates.size > 0) {
      const rows = await this.db.allDocs({ keys: [...candidates], include_docs: true });
      for (const row of rows.rows) classDocs.set(row.key, 'doc' in row ? ((row.doc as WrittenDoc | null | undefined) ?? null) : null);
    }
    return { seq: since, classDocs };
  }

  private apply(state: State, seq: number | string, classDocs: ReadonlyMap<string, WrittenDoc | null>): void {
    for (const [id, doc] of classDocs) {
      if (isActiveClassDoc(doc)) state.names.add(id);
      else state.names.delete(id);
    }
    state.seq = seq;
  }

  private async load(): Promise<State> {
    if (this.state) return this.state;
    const stored = await readRaw<ClassNamesDoc>(this.db, INDEX_ID);
    // two loads at once (a listing and a write): the first one kept
    this.state ??= stored
      ? { seq: stored.seq, names: new Set(stored.names), rev: stored._rev, storedSeq: stored.seq }
      : { seq: 0, names: new Set(), rev: undefined, storedSeq: null };
    return this.state;
  }
}
