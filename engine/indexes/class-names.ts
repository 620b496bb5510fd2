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

interface ClassNamesDoc {
  _id: string;
  _rev?: string;
  /** update sequence the index has seen */
  seq: number;
  names: string[];
}

/**
 * The index in memory: every change up to `seq` is reflected in `names`, and so are the
 * pipeline's writes since (`pending` of them).
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
 *   feed inside the write lock (the pipeline's own among them): a class document arriving any
 *   way is seen.
 */
export class ClassNamesIndex {
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
  async list(): Promise<string[]> {
    const state = await this.#load();
    // anything but the pipeline's writes since the last reading (none after a clean close, or
    // after this stack's own writes) is read inside the write lock; else the reading moves `seq`
    // (a write whose documents are not counted yet stored them after it, or the sums differ)
    const seq = Number((await this.#db.info()).update_seq);
    if (seq === state.seq + state.pending) [state.seq, state.pending] = [seq, 0];
    else await this.#lock(() => this.persist());
    return [...state.names].sort();
  }

  /**
   * Inside the write lock, once a pipeline write stored all of its documents: they move the
   * names (no storage call), and every PERSIST_EVERY of them the checkpoint is stored.
   */
  written(docs: readonly WrittenDoc[]): void | Promise<void> {
    // loaded (every write after the first): counted at once, no promise unless the checkpoint is due
    const state = this.#state;
    if (!state) return this.#load().then(() => this.written(docs));
    for (const doc of docs) if (isClassDocId(doc._id)) apply(state, doc._id, doc);
    state.pending += docs.length;
    if (state.pending >= PERSIST_EVERY) return this.persist();
  }

  /**
   * Inside the write lock: brings `seq` up to the store's update sequence — reading the changes
   * since it when the pipeline's writes do not account for them all (other writers': each
   * document changed since is then taken as it is now) — and stores the checkpoint when it
   * moved (every PERSIST_EVERY written documents, on a listing that read, at close).
   */
  async persist(): Promise<void> {
    const state = await this.#load();
    let seq = Number((await this.#db.info()).update_seq);
    // every pipeline write counted so far is among the changes read
    if (seq !== state.seq + state.pending) seq = await this.#readChanges(state, state.seq);
    [state.seq, state.pending] = [seq, 0];
    const stored = await readRaw<ClassNamesDoc>(this.#db, INDEX_ID);
    if (stored?.seq === seq) return;
    const doc: ClassNamesDoc = { _id: INDEX_ID, ...(stored && { _rev: stored._rev }), seq, names: [...state.names].sort() };
    // by bulkDocs, not put: pouchdb-adapter-idb's own _local put never answers when a full
    // quota aborts its transaction (it listens for errors only), which hung the close
    const [result] = await this.#db.bulkDocs([doc as never]);
    // another stack (tab) on the store stored its own checkpoint meanwhile: as exact as ours
    if ('error' in result && result.status !== 409) throw result;
  }

  /** Takes the class documents among the changes since `since` as they are now; returns the sequence read to. */
  async #readChanges(state: State, since: number): Promise<number> {
    // page through the changes: after a large import there may be millions of them
    const candidates = new Set<string>();
    for (;;) {
      const page = await this.#db.changes({ since, limit: CHANGES_PAGE, return_docs: true });
      this.changesRead += page.results.length;
      for (const change of page.results) if (isClassDocId(change.id)) candidates.add(change.id);
      since = Number(page.last_seq);
      if (page.results.length < CHANGES_PAGE) break;
    }
    if (candidates.size > 0) {
      for (const row of (await this.#db.allDocs({ keys: [...candidates], include_docs: true })).rows) apply(state, row.key, 'doc' in row ? (row.doc as WrittenDoc) : null);
    }
    return since;
  }

  async #load(): Promise<State> {
    const stored = this.#state ? null : await readRaw<ClassNamesDoc>(this.#db, INDEX_ID);
    // two loads at once (a listing and a write): the first one kept
    return (this.#state ??= { seq: Number(stored?.seq ?? 0), names: new Set(stored?.names), pending: 0 });
  }
}

function apply(state: State, id: string, doc: WrittenDoc | null | undefined): void {
  const active = !!doc && doc._deleted !== true && (doc['~class'] === CLASS_META || doc['~class'] === SELF_META) && doc.active !== false;
  if (active) state.names.add(id);
  else state.names.delete(id);
}
