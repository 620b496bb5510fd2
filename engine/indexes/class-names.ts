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
  seq: number;
  names: string[];
}

/**
 * The index in memory: every change up to `seq` is reflected in `names`, and so are the
 * pipeline's writes since (`pending` of them). Names moved by changes after `seq` are safe to
 * store with `seq`: a reader from `seq` reads those documents again as they are now.
 */
interface State {
  seq: number;
  names: Set<string>;
  /** documents the pipeline stored since `seq` (each moved the update sequence by one) */
  pending: number;
}

/** What a write tells the index about one of its stored documents. */
export interface WrittenDoc {
  _id: string;
  _deleted?: unknown;
  '~class'?: unknown;
  active?: unknown;
}

type ClassDocs = Iterable<readonly [string, WrittenDoc | null | undefined]>;

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
  #running: Promise<string[]> | null = null;
  #queued: Promise<string[]> | null = null;
  #state: State | null = null;
  /** how many changes this index has read from the changes feed (tests assert on it) */
  changesRead = 0;

  readonly #db: Database;
  readonly #lock: WriteLock;

  constructor(db: Database, lock: WriteLock) {
    this.#db = db;
    this.#lock = lock;
  }

  /** Names of the class documents that exist and are active (meta-classes included). */
  list(): Promise<string[]> {
    if (!this.#running) return this.#start();
    // one under way may have read the changes before this call's: the callers that come during
    // it share the next one
    this.#queued ??= this.#running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.#queued = null;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<string[]> {
    const run = this.#catchUp().finally(() => {
      if (this.#running === run) this.#running = null;
    });
    this.#running = run;
    return run;
  }

  /**
   * Inside the write lock, once a pipeline write stored all of its documents: they move the
   * names (no storage call), and every PERSIST_EVERY of them the checkpoint is stored.
   */
  async written(docs: readonly WrittenDoc[]): Promise<void> {
    const state = await this.#load();
    apply(state, docs.filter((doc) => isClassDocId(doc._id)).map((doc) => [doc._id, doc] as const));
    state.pending += docs.length;
    // a large gap of other writers' changes is read once, off the writes (by a listing)
    if (state.pending >= PERSIST_EVERY && !this.#running && !(await this.persist())) void this.list().catch(() => undefined);
  }

  /**
   * Inside the write lock: brings `seq` up to the store's update sequence and stores the
   * checkpoint when it moved (every PERSIST_EVERY written documents, at close). The changes
   * since `seq` are read only when the pipeline's writes do not account for them all, and only
   * when at most INLINE_GAP are not the pipeline's: false when more were left unread.
   */
  async persist(): Promise<boolean> {
    const state = await this.#load();
    const seq = Number((await this.#db.info()).update_seq);
    const foreign = seq - state.seq - state.pending;
    const settled = Math.abs(foreign) <= INLINE_GAP;
    if (foreign === 0) [state.seq, state.pending] = [seq, 0];
    else if (settled) this.#take(state, await this.#readChanges(state.seq));
    const stored = await readRaw<ClassNamesDoc>(this.#db, INDEX_ID);
    if (stored?.seq !== state.seq) {
      const doc: ClassNamesDoc = { _id: INDEX_ID, ...(stored && { _rev: stored._rev }), seq: state.seq, names: [...state.names].sort() };
      // another stack (tab) on the store stored its own checkpoint meanwhile: as exact as ours
      await this.#db.put(doc as never).catch((err: { status?: number }) => {
        if (err.status !== 409) throw err;
      });
    }
    return settled;
  }

  async #catchUp(): Promise<string[]> {
    const state = await this.#load();
    // anything but the pipeline's writes since the last reading (none after a clean close, or
    // after this stack's own writes): read outside the write lock, as it may be large, and what
    // came meanwhile inside it; each document changed since is then taken as it is now
    if (Number((await this.#db.info()).update_seq) !== state.seq + state.pending) {
      const read = await this.#readChanges(state.seq);
      await this.#lock(async () => {
        const rest = await this.#readChanges(read.seq);
        apply(state, read.classDocs);
        this.#take(state, rest);
        await this.persist();
      });
    }
    return [...state.names].sort();
  }

  /** Changes read inside the lock: every pipeline write counted so far is among them. */
  #take(state: State, read: { seq: number; classDocs: ClassDocs }): void {
    apply(state, read.classDocs);
    [state.seq, state.pending] = [read.seq, 0];
  }

  /** The class documents among the changes since `since` (the latest version of each), and the sequence read to. */
  async #readChanges(since: number): Promise<{ seq: number; classDocs: ClassDocs }> {
    // page through the changes: after a large import there may be millions of them
    const candidates = new Set<string>();
    for (;;) {
      const page = await this.#db.changes({ since, limit: CHANGES_PAGE, return_docs: true });
      this.changesRead += page.results.length;
      for (const change of page.results) if (isClassDocId(change.id)) candidates.add(change.id);
      since = Number(page.last_seq);
      if (page.results.length < CHANGES_PAGE) break;
    }
    const rows = candidates.size > 0 ? (await this.#db.allDocs({ keys: [...candidates], include_docs: true })).rows : [];
    return { seq: since, classDocs: rows.map((row) => [row.key, 'doc' in row ? (row.doc as WrittenDoc | null | undefined) : null] as const) };
  }

  async #load(): Promise<State> {
    const stored = this.#state ? null : await readRaw<ClassNamesDoc>(this.#db, INDEX_ID);
    // two loads at once (a listing and a write): the first one kept
    return (this.#state ??= { seq: Number(stored?.seq ?? 0), names: new Set(stored?.names), pending: 0 });
  }
}

function apply(state: State, classDocs: ClassDocs): void {
  for (const [id, doc] of classDocs) {
    const active = !!doc && doc._deleted !== true && (doc['~class'] === CLASS_META || doc['~class'] === SELF_META) && doc.active !== false;
    if (active) state.names.add(id);
    else state.names.delete(id);
  }
}
