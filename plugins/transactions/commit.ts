import { TX_ERRORS } from './errors.js';
import type { Journal } from './journal.js';
import { stampsFor } from './stamp.js';
import { Transaction } from './transaction.js';
import { type ClientStack, type Doc, DocstackError, type WriteRequest, type WriteSession } from '../../index.js';
import { claimFor, isNaturalClaim, type KeyClaim } from '../../kit/index.js';

export interface TransactionOptions {
  /** how many times the function is run again after a conflict at commit (default 3) */
  retries?: number;
  /** who runs the transaction: its checks and its commit carry it (WriteContext.session) */
  session?: WriteSession;
}

export const DEFAULT_RETRIES = 3;

/** A commit met another writer's change: the function is run again. */
class Conflict extends Error {}

/**
 * Runs fn with a fresh transaction until it commits, at most 1 + retries times. A throw from fn
 * aborts (its keys released, nothing stored) and is rethrown as it is.
 */
export async function runTransaction<T>(stack: ClientStack, journal: Journal, fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  if (typeof fn !== 'function') throw TX_ERRORS.invalid('stack.transaction needs an async function (tx) => …', { path: 'fn' });
  if (!Number.isInteger(retries) || retries < 0) throw TX_ERRORS.invalid(`retries must be a whole number ≥ 0 (got ${String(retries)}).`, { path: 'retries' });
  let lastConflict = '';
  for (let attempt = 0; attempt <= retries; attempt++) {
    const tx = new Transaction(globalThis.crypto.randomUUID(), stack, journal, options.session);
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      await abort(stack, journal, tx);
      throw err;
    }
    tx.end();
    try {
      await commit(stack, journal, tx);
      return result;
    } catch (err) {
      if (!(err instanceof Conflict)) throw err;
      lastConflict = err.message;
    }
  }
  throw TX_ERRORS.conflict(`The transaction met concurrent changes ${retries + 1} time(s) and was given up: ${lastConflict}`, { details: { attempts: retries + 1 } });
}

async function abort(stack: ClientStack, journal: Journal, tx: Transaction): Promise<void> {
  tx.end();
  await stack.primaryKeys.release(tx.held);
  await journal.drop(tx.id);
}

/**
 * Journal (the ops and their previous revisions), documents (one pipeline call: reads checked
 * inside the write lock, keys, bulkDocs, after-triggers once), journal done. Commits run one at a time, so the read check and the write
 * do not interleave with another transaction's commit of this stack.
 */
async function commit(stack: ClientStack, journal: Journal, tx: Transaction): Promise<Doc[]> {
  const writes = [...tx.writes.values()];
  const size = writes.length;
  const stamps = stampsFor(tx.id, writes.map((w) => ({ draft: w.draft, ...(w.previous ? { previous: w.previous } : {}), className: w.model.name })));
  const requests: WriteRequest[] = writes.map((w, i) => ({
    op: w.op,
    draft: { ...w.draft, '~tx': stamps[i] as Doc['~tx'] },
    ...(w.previous ? { previous: w.previous } : {}),
    classModel: w.model,
  }));
  const releases = writes.flatMap((w) => (w.previous ? [claimFor(w.model, w.previous)].filter((c): c is KeyClaim => !!c) : []));
  return journal.serial(async () => {
    let stored: Doc[];
    try {
      if (size === 0) {
        await checkReads(stack, tx);
        if (tx.held.length > 0) await journal.end(tx.id);
        return [];
      }
      await journal.begin(tx.id, requests, releases);
      // inside the store's write lock, right before bulkDocs: no writer of this process slips in between check and write
      stored = await stack.writeRequests(requests, 'local', { transaction: tx.id, ...tx.sessionExtras, guard: () => checkReads(stack, tx) });
    } catch (err) {
      // nothing of it is stored (the pipeline undoes a partial write): give the keys back
      await stack.primaryKeys.release(tx.held);
      await journal.end(tx.id);
      if (err instanceof Conflict) throw err;
      if (err instanceof DocstackError && err.code === 'DS_DOC_CONFLICT') throw new Conflict(err.message);
      throw err;
    }
    // keys claimed on the way and given up again (a key changed twice) are not the documents' now;
    // a document stored under its key's natural id is its own claim: its entry goes too
    const kept = new Set(writes.map((w, i) => (stored[i].active !== false ? claimFor(w.model, requests[i].draft)?.keyId : undefined)));
    await stack.primaryKeys.release(tx.held.filter((c) => !kept.has(c.keyId) || isNaturalClaim(c)));
    await journal.end(tx.id);
    return stored;
  });
}

/**
 * Every document the transaction read, written by it or not, is still at the revision read (a
 * hidden one counts as absent). The written ones need it too: a write's draft is made from the
 * document as stored when the write is made, so a change between `tx.getDocument` and
 * `tx.updateDoc` would otherwise pass storage's revision check and be overwritten.
 */
async function checkReads(stack: ClientStack, tx: Transaction): Promise<void> {
  const ids = [...tx.reads.keys()];
  if (ids.length === 0) return;
  const docs = await stack.storage.getMany(ids);
  ids.forEach((id, i) => {
    const doc = docs[i];
    const rev = doc && !stack.hooks.hidden.call(doc, { stack }) ? (doc._rev ?? null) : null;
    if (rev !== tx.reads.get(id)) throw new Conflict(`"${id}" changed after the transaction read it.`);
  });
}
