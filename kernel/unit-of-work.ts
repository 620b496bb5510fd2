import { DocstackError, KERNEL_ERRORS } from '../contracts/errors.js';
import type { Doc } from '../contracts/model.js';
import type { StoredResult, UnitDoc, UnitItem, WriteShare } from '../contracts/unit-of-work.js';
import type { ChangeFeed, WrittenChange } from '../storage/change-feed.js';
import type { Database } from '../storage/database.js';
import type { WriteLock } from '../storage/write-lock.js';

/**
 * Documents per bulkDocs call. leveldb-core copies a call's whole pending batch on every operation
 * it adds (LevelTransaction.batch), so a call costs more than linearly in its operations; with a
 * key entry per document, 250 documents a call measured ≈ 20 % less CPU than 1,000 (memory adapter).
 */
export const WRITE_CHUNK = 250;

export interface UnitDeps {
  db: Database;
  lock: WriteLock;
  /** the stack's change feed: a large write is announced from what it wrote (ChangeFeed.ownWrite) */
  feed?: ChangeFeed;
}

/** A document of the write that was not stored: its index and PouchDB's answer. */
interface DocFailure {
  index: number;
  status?: number;
  message?: string;
}

const failed = (result: StoredResult): boolean => 'error' in result && Boolean(result.error);

/**
 * Stores a pipeline write in one bulkDocs call per chunk of documents, each call carrying the
 * write parts' documents for that chunk (key entries, counters…) before the documents
 * themselves, so PouchDB writes them in one adapter transaction. Inside the store's write lock:
 * `guard` (WriteExtras) first, then each share's `prepare` (a key a live document owns refuses the
 * call before anything is written). Should a document or a part's document still fail (a writer
 * of another process, a revision conflict, a create whose id is taken), what the call stored is
 * undone — the documents reverted and each share's `undo` — and the error thrown; creates refused
 * as taken go to the shares' `refused` first, and when one revives them (`renew` given) the write
 * is tried again with new shares.
 */
export async function storeUnit(deps: UnitDeps, items: readonly UnitItem[], shares: readonly WriteShare[], guard?: () => Promise<void>, renew?: () => Promise<WriteShare[]>): Promise<void> {
  await deps.lock(async () => {
    if (guard) await guard();
    let failure: Error | DocFailure | null = null;
    // how many times refused creates may be settled and the write tried again (each retry revives at least one)
    let retries = items.length;
    const run = async (): Promise<WrittenChange[]> => {
      for (;;) {
        for (const share of shares) await share.prepare?.();
        const attempt = await storeChunks(deps, items, shares);
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
        shares = await renew();
      }
    };
    await (deps.feed ? deps.feed.ownWrite(items.length, run) : run());
    const lost = failure as Error | DocFailure | null; // set inside run (TypeScript cannot see it)
    if (lost) throw lost instanceof Error ? lost : failureError(items, lost);
    for (const share of shares) await share.done?.();
  });
}

interface Attempt {
  failure: Error | DocFailure | null;
  /** the items stored */
  written: number[];
  /** what shares without an `undo` stored (new documents only): the kernel takes it back for them */
  created: UnitDoc[];
  /** creates storage refused as taken (409) */
  refused: number[];
}

/** One try at storing the write: a bulkDocs call per chunk, until one fails. */
async function storeChunks(deps: UnitDeps, items: readonly UnitItem[], shares: readonly WriteShare[]): Promise<Attempt> {
  const attempt: Attempt = { failure: null, written: [], created: [], refused: [] };
  for (let start = 0; start < items.length && !attempt.failure; start += WRITE_CHUNK) {
    const end = Math.min(items.length, start + WRITE_CHUNK);
    const added: UnitDoc[][] = [];
    for (const share of shares) added.push(share.docs ? await share.docs(start, end) : []);
    const replacing = shares.findIndex((share, k) => !share.undo && added[k].some((doc) => doc._rev !== undefined));
    if (replacing >= 0) {
      attempt.failure = KERNEL_ERRORS.pluginInvalid('A write share that replaces documents (a _rev given) needs an undo.', { details: { share: replacing } });
      break;
    }
    const locals = added.flat().map((doc) => ({ ...doc }));
    const results = (await deps.db.bulkDocs([...locals, ...items.slice(start, end).map((i) => i.doc)] as never[])) as StoredResult[];
    let offset = 0;
    shares.forEach((share, k) => {
      const own = results.slice(offset, offset + added[k].length);
      offset += added[k].length;
      const error = added[k].length > 0 ? share.stored?.(own) : undefined;
      if (error) attempt.failure ??= error;
      if (!share.undo) own.forEach((r, j) => !failed(r) && attempt.created.push({ _id: added[k][j]._id, _rev: r.rev, _deleted: true }));
    });
    for (let i = locals.length; i < results.length; i++) {
      const index = start + i - locals.length;
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
  return attempt;
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
