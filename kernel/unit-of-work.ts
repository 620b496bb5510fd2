import { DocstackError, KERNEL_ERRORS } from '../contracts/errors.js';
import type { Doc } from '../contracts/model.js';
import type { StoredResult, UnitDoc, UnitItem, WriteShare } from '../contracts/unit-of-work.js';
import type { ChangeFeed, WrittenChange } from '../storage/change-feed.js';
import { writeChunkOf, type Database } from '../storage/database.js';
import { storeDocs } from '../storage/direct-write.js';
import { isPromiseLike } from '../storage/settle.js';
import type { WriteLock } from '../storage/write-lock.js';
import { STORAGE_WRITE_CHUNK } from '../storage/write-chunks.js';

/**
 * The most documents one bulkDocs call of a small write, or of concurrent small writes sharing a
 * call (kernel/commit-group.ts), carries; a large write is split in calls of its adapter's size
 * (writeChunkOf: this on leveldb and memory, more on IndexedDB — storage/write-chunks.ts).
 */
export const WRITE_CHUNK = STORAGE_WRITE_CHUNK;

export interface UnitDeps {
  db: Database;
  lock: WriteLock;
  /** where concurrent small writes meet to share a storage call (none: each write stores alone) */
  group?: { submit(unit: Unit): Promise<void> };
  /** the stack's change feed: a large write is announced from what it wrote (ChangeFeed.ownWrite) */
  feed?: ChangeFeed;
}

/** A document of the write that was not stored: its index and PouchDB's answer. */
export interface DocFailure {
  index: number;
  status?: number;
  message?: string;
}

const failed = (result: StoredResult): boolean => 'error' in result && Boolean(result.error);

/** One pipeline write, as the unit of work stores it. */
export interface Unit {
  readonly items: readonly UnitItem[];
  shares: readonly WriteShare[];
  /** WriteExtras.guard: run under the lock right before the write (a transaction's read check) */
  readonly guard?: () => Promise<void>;
  /** new shares for a retry, once a share revived creates storage refused */
  readonly renew?: () => WriteShare[] | Promise<WriteShare[]>;
}

/**
 * Stores a pipeline write in one bulkDocs call per chunk of documents, each call carrying the
 * write parts' documents for that chunk (key entries, counters…) before the documents
 * themselves, so PouchDB writes them in one adapter transaction. Inside the store's write lock:
 * `guard` (WriteExtras) first, then each share's `prepare` (a key a live document owns refuses the
 * call before anything is written). Should a document or a part's document still fail (a writer
 * of another process, a revision conflict, a create whose id is taken), what the call stored is
 * undone — the documents reverted and each share's `undo` — and the error thrown; creates refused
 * as taken go to the shares' `refused` first, and when one revives them (`renew` given) the write
 * is tried again with new shares. Small writes that meet at the lock share one call
 * (kernel/commit-group.ts); a write with a guard is always stored alone.
 */
export function storeUnit(deps: UnitDeps, unit: Unit): Promise<void> {
  // a write that finds the lock free stores at once, alone (a serial writer never waits on the group)
  if (deps.group && deps.lock.busy() && !unit.guard && unit.renew && unit.items.length < WRITE_CHUNK) return deps.group.submit(unit);
  return deps.lock(() => storeLocked(deps, unit));
}

/**
 * storeUnit, answering what `answer` returns once the write is stored. The usual write (one
 * chunk, no guard, no feed hand-over) finding the lock free holds it (WriteLock.hold), stores,
 * gives it back and answers in the turn the adapter calls back in: no `then` of the lock's on the
 * section's promise, none of the caller's on storeUnit's — each a promise and a turn of the
 * microtask queue per serial write. Any other write (or a step answering with a promise) is
 * storeUnit's, then `answer`. Node only (the pipeline's usual write): the browser files' lock cannot be held.
 */
export function storeUnitThen<T>(deps: UnitDeps, unit: Unit, answer: () => T): Promise<T> {
  const { lock, feed } = deps;
  if (unit.guard || unit.items.length > WRITE_CHUNK || !lock.hold || feed?.takesOver(unit.items.length) || !lock.hold()) {
    return storeUnit(deps, unit).then(answer);
  }
  // held from here: every way out gives the lock back
  const attempt = newAttempt();
  let listed: UnitDoc[][] | null | Promise<UnitDoc[][] | null>;
  let stored: Promise<StoredResult[]>;
  try {
    const preparing = prepareShares(unit.shares);
    if (isPromiseLike(preparing)) return releasedThen(lock, Promise.resolve(preparing).then(() => storeOnce(deps, unit)), answer);
    listed = shareDocs(unit.shares, 0, unit.items.length, attempt);
    if (isPromiseLike(listed) || !listed) return releasedThen(lock, Promise.resolve(listed).then((added) => storeListed(deps, unit, attempt, added)), answer);
    stored = storeCall(deps.db, callDocs(listed, unit.items, 0, unit.items.length));
  } catch (err) {
    lock.release!();
    return Promise.reject(err);
  }
  return stored.then(storedHeld.bind(null, deps, unit, attempt, listed, answer) as (results: StoredResult[]) => T, releaseFailed.bind(null, lock));
}

/** storedOnce for a write that holds the lock: what follows, the lock given back, then its answer. */
function storedHeld<T>(deps: UnitDeps, unit: Unit, attempt: Attempt, added: UnitDoc[][], answer: () => T, results: StoredResult[]): T | Promise<T> {
  let rest: void | Promise<void>;
  try {
    rest = storedOnce(deps, unit, attempt, added, results);
  } catch (err) {
    deps.lock.release!();
    throw err;
  }
  if (isPromiseLike(rest)) return releasedThen(deps.lock, rest, answer);
  deps.lock.release!();
  return answer();
}

/** A held lock given back once `running` settles, then `answer` (the rarer paths: a turn more is nothing there). */
function releasedThen<T>(lock: WriteLock, running: Promise<void>, answer: () => T): Promise<T> {
  return running.then(
    () => {
      lock.release!();
      return answer();
    },
    (err: unknown) => releaseFailed(lock, err),
  );
}

function releaseFailed(lock: WriteLock, err: unknown): never {
  lock.release!();
  throw err;
}

/**
 * storeUnit's work, the store's write lock held. `first`: the outcome of a first attempt already
 * made (a group's shared call, its shares prepared): only its failure is settled here. The usual
 * write (one chunk, no guard, no feed hand-over) is one bulkDocs call and a `then`: no async
 * frame, whose promise every serial write would pay for; anything else goes to storeSettling.
 */
export function storeLocked(deps: UnitDeps, unit: Unit, first?: Attempt): Promise<void> {
  // the usual write (Node: the browser files settle every write in storeSettling, no bytes for this)
  if (!globalThis.docstackBrowserBuild && !first && !unit.guard && unit.items.length <= WRITE_CHUNK && !deps.feed?.takesOver(unit.items.length)) {
    try {
      const preparing = prepareShares(unit.shares);
      return isPromiseLike(preparing) ? Promise.resolve(preparing).then(() => storeOnce(deps, unit)) : storeOnce(deps, unit);
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return storeSettling(deps, unit, first);
}

/** One call for the whole write, its shares prepared: stored, or its failure settled by storeSettling. */
function storeOnce(deps: UnitDeps, unit: Unit): Promise<void> {
  const attempt = newAttempt();
  const listed = shareDocs(unit.shares, 0, unit.items.length, attempt);
  return isPromiseLike(listed) ? Promise.resolve(listed).then((added) => storeListed(deps, unit, attempt, added)) : storeListed(deps, unit, attempt, listed);
}

/** storeOnce with its shares' documents listed: the one bulkDocs call (null: a share broke the rules). */
function storeListed(deps: UnitDeps, unit: Unit, attempt: Attempt, added: UnitDoc[][] | null): Promise<void> {
  if (!added) return storeSettling(deps, unit, attempt);
  const stored = storeCall(deps.db, callDocs(added, unit.items, 0, unit.items.length));
  // a bound function, not a closure per write: V8 keeps a function's optimized code only while some
  // function object of its kind lives (docs/benchmarks.md#code-shared-by-every-stack)
  return stored.then(storedOnce.bind(null, deps, unit, attempt, added));
}

function storedOnce(deps: UnitDeps, unit: Unit, attempt: Attempt, added: UnitDoc[][], results: unknown): void | Promise<void> {
  absorb(attempt, unit.items, unit.shares, added, results as StoredResult[], 0);
  return attempt.failure ? storeSettling(deps, unit, attempt) : finishShares(unit.shares);
}

/**
 * A write's attempts until one is stored or the write fails: `first`, when given, is the
 * outcome of an attempt already made; what failed is undone, creates storage refused as taken
 * may be revived by a share and the write tried again (renew), else the failure is thrown.
 */
async function storeSettling(deps: UnitDeps, unit: Unit, first?: Attempt): Promise<void> {
  const { items, guard, renew } = unit;
  let shares = unit.shares;
  if (guard && !first) await guard();
  let failure: Error | DocFailure | null = null;
  // how many times refused creates may be settled and the write tried again (each retry revives at least one)
  let retries = items.length;
  let pending = first;
  const run = async (): Promise<WrittenChange[]> => {
    for (;;) {
      let attempt = pending;
      pending = undefined;
      if (!attempt) {
        const preparing = prepareShares(shares);
        if (isPromiseLike(preparing)) await preparing;
        attempt = await storeChunks(deps, items, shares);
      }
      failure = attempt.failure;
      if (!failure) return attempt.written.map((i) => ({ id: items[i].doc._id, rev: items[i].doc._rev!, deleted: (items[i].doc as { _deleted?: boolean })._deleted === true }));
      await undo(deps, items, attempt.written, shares, attempt.created);
      if (!renew || retries-- <= 0 || attempt.refused.length === 0 || !shares.some((s) => s.refused)) return [];
      let again = false;
      try {
        for (const share of shares) if (share.refused && (await share.refused(attempt.refused))) again = true;
      } catch (err) {
        failure = err as Error;
        return [];
      }
      if (!again) return [];
      shares = unit.shares = await renew();
    }
  };
  if (!first && deps.feed?.takesOver(items.length)) await deps.feed.ownWrite(items.length, run);
  else await run();
  const lost = failure as Error | DocFailure | null; // set inside run (TypeScript cannot see it)
  if (lost) throw lost instanceof Error ? lost : failureError(items, lost);
  return finishShares(shares);
}

/** Each share's `done`, in order, once the write is stored; a promise only once one `done` returns one. */
function finishShares(shares: readonly WriteShare[], from = 0): void | Promise<void> {
  for (let k = from; k < shares.length; k++) {
    const finishing = shares[k].done?.();
    if (isPromiseLike(finishing)) return Promise.resolve(finishing).then(() => finishShares(shares, k + 1));
  }
}

export interface Attempt {
  failure: Error | DocFailure | null;
  /** the items stored */
  written: number[];
  /** what shares without an `undo` stored (new documents only): the kernel takes it back for them */
  created: UnitDoc[];
  /** creates storage refused as taken (409) */
  refused: number[];
}

/** Each share's `prepare`, in order; a promise only once one of them returns one (the usual create has none). */
export function prepareShares(shares: readonly WriteShare[], from = 0): void | Promise<void> {
  for (let k = from; k < shares.length; k++) {
    const preparing = shares[k].prepare?.();
    if (isPromiseLike(preparing)) return Promise.resolve(preparing).then(() => prepareShares(shares, k + 1));
  }
}

export const newAttempt = (): Attempt => ({ failure: null, written: [], created: [], refused: [] });

/** One try at storing the write: a bulkDocs call per chunk (its adapter's size), until one fails. */
async function storeChunks(deps: UnitDeps, items: readonly UnitItem[], shares: readonly WriteShare[]): Promise<Attempt> {
  const attempt = newAttempt();
  const chunk = writeChunkOf(deps.db);
  for (let start = 0; start < items.length && !attempt.failure; start += chunk) {
    const end = Math.min(items.length, start + chunk);
    const pending = shareDocs(shares, start, end, attempt);
    const added = isPromiseLike(pending) ? await pending : pending;
    if (!added) break;
    const results = await storeCall(deps.db, callDocs(added, items, start, end));
    absorb(attempt, items, shares, added, results, start);
  }
  return attempt;
}

/**
 * One storage call of a write's documents: on Node's stores straight to the adapter
 * (storage/direct-write.ts); the browser files keep pouchdb-core's `bulkDocs` (the ternary keeps
 * that module out of them: no bytes for it).
 */
export function storeCall(db: Database, docs: object[]): Promise<StoredResult[]> {
  return (globalThis.docstackBrowserBuild ? db.bulkDocs(docs as never[]) : storeDocs(db, docs)) as Promise<StoredResult[]>;
}

/** One bulkDocs call's documents: the shares' copied (PouchDB adds `_rev` to what it is given), then items [start, end). */
function callDocs(added: readonly UnitDoc[][], items: readonly UnitItem[], start: number, end: number): object[] {
  const docs: object[] = [];
  for (const list of added) for (const doc of list) docs.push({ ...doc });
  for (let i = start; i < end; i++) docs.push(items[i].doc);
  return docs;
}

/** The shares' documents for items [start, end); null (the attempt failed) when a share breaks the rules. */
export function shareDocs(shares: readonly WriteShare[], start: number, end: number, attempt: Attempt): UnitDoc[][] | null | Promise<UnitDoc[][] | null> {
  const added: UnitDoc[][] = [];
  for (let k = 0; k < shares.length; k++) {
    const docs = shares[k].docs ? shares[k].docs!(start, end) : [];
    if (isPromiseLike(docs)) return shareDocsRest(shares, start, end, attempt, added, docs);
    added.push(docs);
  }
  return checkShareDocs(shares, added, attempt);
}

async function shareDocsRest(shares: readonly WriteShare[], start: number, end: number, attempt: Attempt, added: UnitDoc[][], pending: PromiseLike<UnitDoc[]>): Promise<UnitDoc[][] | null> {
  added.push(await pending);
  for (let k = added.length; k < shares.length; k++) added.push(shares[k].docs ? await shares[k].docs!(start, end) : []);
  return checkShareDocs(shares, added, attempt);
}

function checkShareDocs(shares: readonly WriteShare[], added: UnitDoc[][], attempt: Attempt): UnitDoc[][] | null {
  const replacing = replacingShare(shares, added);
  if (replacing < 0) return added;
  attempt.failure = KERNEL_ERRORS.pluginInvalid('A write share that replaces documents (a _rev given) needs an undo.', { details: { share: replacing } });
  return null;
}

/** The first share without an `undo` whose documents replace stored ones (a `_rev` given), or -1. Loops: every write asks, and most shares add nothing. */
function replacingShare(shares: readonly WriteShare[], added: readonly UnitDoc[][]): number {
  for (let k = 0; k < shares.length; k++) {
    if (shares[k].undo) continue;
    const docs = added[k];
    for (let j = 0; j < docs.length; j++) if (docs[j]._rev !== undefined) return k;
  }
  return -1;
}

/**
 * Reads one bulkDocs answer for items [start, …) of a write: the shares' documents first (in
 * share order, as `added` lists them), then the items'. What failed becomes the attempt's failure.
 */
export function absorb(attempt: Attempt, items: readonly UnitItem[], shares: readonly WriteShare[], added: UnitDoc[][], results: readonly StoredResult[], start: number): void {
  let offset = 0;
  for (let k = 0; k < shares.length; k++) {
    const count = added[k].length;
    if (count === 0) continue; // most shares add nothing to most calls
    const share = shares[k];
    const own = results.slice(offset, offset + count);
    offset += count;
    const error = share.stored?.(own);
    if (error) attempt.failure ??= error;
    if (!share.undo) own.forEach((r, j) => !failed(r) && attempt.created.push({ _id: added[k][j]._id, _rev: r.rev, _deleted: true }));
  }
  for (let i = offset; i < results.length; i++) {
    const index = start + i - offset;
    const result = results[i];
    if (failed(result)) {
      attempt.failure ??= { index, status: result.status, message: result.message };
      if (result.status === 409 && items[index].op === 'create' && !items[index].previous) attempt.refused.push(index);
    } else {
      (items[index].doc as Doc)._rev = result.rev;
      attempt.written.push(index);
    }
  }
}

/**
 * Compensates a partial write: new documents removed, updated ones restored, each share's
 * documents taken back. The reverted items get the revision the revert stored (a new document
 * none: it is created again over its tombstone), so the write can be tried again.
 */
async function undo(deps: UnitDeps, items: readonly UnitItem[], written: number[], shares: readonly WriteShare[], created: UnitDoc[]): Promise<void> {
  const reverts: object[] = [...created];
  reverts.push(...written.map((i) => {
    const { previous, doc } = items[i];
    return previous ? { ...previous, _rev: doc._rev } : { _id: doc._id, _rev: doc._rev, _deleted: true };
  }));
  for (const share of shares) if (share.undo) reverts.push(...(await share.undo()));
  if (reverts.length === 0) return;
  const results = (await deps.db.bulkDocs(reverts as never[])) as StoredResult[];
  written.forEach((i, k) => {
    const doc = items[i].doc as { _rev?: string };
    const reverted = results[created.length + k];
    if (!items[i].previous) delete doc._rev;
    else if (reverted && !failed(reverted)) doc._rev = reverted.rev;
  });
}

function failureError(items: readonly UnitItem[], failure: DocFailure): DocstackError {
  const { index, status, message } = failure;
  const id = items[index].doc._id;
  if (status === 409 && items[index].op === 'create') {
    return KERNEL_ERRORS.docExists(`A document with the id "${id}" already exists.`, { details: { id } });
  }
  if (status === 409) return KERNEL_ERRORS.docConflict(`"${id}" was changed by another writer; read it again and retry.`, { details: { id } });
  return KERNEL_ERRORS.docConflict(`Storing "${id}" failed: ${message ?? 'unknown storage error'}.`, { details: { id, status } });
}
