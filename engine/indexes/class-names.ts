import { isClassDocId } from '../class-cache.js';
import { CLASS_META, SELF_META } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from '../../storage/raw-reads.js';
import type { WriteLock } from '../../storage/write-lock.js';

const INDEX_ID = '_local/~index/class-names';
const CHANGES_PAGE = 1000;
/**
 * The checkpoint is stored once the pipeline has written this many documents since it was
 * stored (and on close): a write pays no storage call for it, and after a crash at most this
 * many changes are read back.
 */
export const PERSIST_EVERY = 1000;
/** A checkpoint stored with at most this many other writers' changes to read reads them at once; more are left to a listing. */
const INLINE_GAP = 100;

interface ClassNamesDoc {
  _id: string;
  _rev?: string;
  /** update sequence the index has seen */
  seq: number | string;
  names: string[];
}

/**
 * The index in memory: every change up to `seq` is reflected in `names`, and so are the
 * pipeline's writes since (`pending` of them). Names moved by changes after `seq` are safe to
 * store with `seq`: a reader from `seq` reads those documents again as they are now.
 */
interface State {
  seq: number | string;
  names: Set<string>;
  /** documents the pipeline stored since `seq` (each moved the update sequence by one) */
  pending: number;
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
 * - the pipeline's own writes move `names` as they end (`classNamesPart`), with no storage call:
 *   the index counts them, and when the update sequence, read later (a listing, every
 *   PERSIST_EVERY written documents, close), moved by exactly that count, they were the only
 *   changes and nothing is read back;
 * - when it moved by more (a replication, a purge, a class put outside the pipeline, another
 *   stack or tab on the store), the changes since the last reading are read from the changes
 *   feed (the pipeline's own among them): a class document arriving any way is seen.
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

  /**
   * Inside the write lock, once a pipeline write stored all of its documents: they move the
   * names (no storage call), and every PERSIST_EVERY of them the checkpoint is stored.
   */
  async written(docs: readonly WrittenDoc[]): Promise<void> {
    const state = await this.load();
    for (const doc of docs) {
      if (!isClassDocId(doc._id)) continue;
      if (isActiveClassDoc(doc)) state.names.add(doc._id);
      else state.names.delete(doc._id);
    }
    state.pending += docs.length;
    // a large foreign gap is read once, off the writes (by a listing)
    if (state.pending >= PERSIST_EVERY && !this.running && !(await this.persist())) void this.list().catch(() => undefined);
  }

  /**
   * Inside the write lock: stores the checkpoint when it moved (every PERSIST_EVERY written
   * documents, at close). False when a large foreign gap was left for a listing to read.
   */
  async persist(): Promise<boolean> {
    const state = await this.load();
    const settled = await this.settle(state);
    if (state.storedSeq !== null && sameSeq(state.storedSeq, state.seq)) return settled;
    if (state.rev === undefined && state.storedSeq !== null) state.rev = (await readRaw<ClassNamesDoc>(this.db, INDEX_ID))?._rev;
    const doc: ClassNamesDoc = { _id: INDEX_ID, ...(state.rev ? { _rev: state.rev } : {}), seq: state.seq, names: [...state.names].sort() };
    try {
      state.rev = (await this.db.put(doc as never)).rev;
      state.storedSeq = doc.seq;
    } catch (err) {
      // another stack (tab) on the store stored its own checkpoint: as exact as ours, at its sequence; its revision is read next time
      if ((err as { status?: number }).status !== 409) throw err;
      state.rev = undefined;
    }
    return settled;
  }

  /**
   * Inside the write lock: brings `seq` up to the store's update sequence. The changes since
   * `seq` are read only when the pipeline's writes do not account for them all, and only when
   * at most INLINE_GAP are not the pipeline's; false when more were left unread.
   */
  private async settle(state: State): Promise<boolean> {
    const seq = Number((await this.db.info()).update_seq);
    const foreign = seq - Number(state.seq) - state.pending;
    if (foreign === 0) {
      state.seq = seq;
      state.pending = 0;
      return true;
    }
    if (!(Math.abs(foreign) <= INLINE_GAP)) return false;
    this.apply(state, await this.readChanges(state.seq));
    return true;
  }

  private async catchUp(): Promise<string[]> {
    const state = await this.load();
    // nothing but the pipeline's writes since the last reading (an open after a clean close, a listing after this stack's writes)
    if (Number((await this.db.info()).update_seq) === Number(state.seq) + state.pending) return [...state.names].sort();
    // a gap of other writers' changes, maybe large: read outside the write lock, and what came
    // meanwhile inside it; each document changed since is then as it is now
    const read = await this.readChanges(state.seq);
    return this.lock(async () => {
      const rest = await this.readChanges(read.seq);
      this.apply(state, read);
      this.apply(state, rest);
      await this.persist();
      return [...state.names].sort();
    });
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

  /** Changes read up to `read.seq`, inside the lock: every pipeline write counted so far is among them. */
  private apply(state: State, read: { seq: number | string; classDocs: ReadonlyMap<string, WrittenDoc | null> }): void {
    for (const [id, doc] of read.classDocs) {
      if (isActiveClassDoc(doc)) state.names.add(id);
      else state.names.delete(id);
    }
    state.seq = read.seq;
    state.pending = 0;
  }

  private async load(): Promise<State> {
    if (this.state) return this.state;
    const stored = await readRaw<ClassNamesDoc>(this.db, INDEX_ID);
    // two loads at once (a listing and a write): the first one kept
    this.state ??= stored
      ? { seq: stored.seq, names: new Set(stored.names), pending: 0, rev: stored._rev, storedSeq: stored.seq }
      : { seq: 0, names: new Set(), pending: 0, rev: undefined, storedSeq: null };
    return this.state;
  }
}
