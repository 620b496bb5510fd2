import type { StoredResult, UnitDoc } from '../contracts/unit-of-work.js';
import { absorb, newAttempt, prepareShares, shareDocs, storeCall, storeLocked, WRITE_CHUNK, type Attempt, type Unit, type UnitDeps } from './unit-of-work.js';

interface Waiting {
  unit: Unit;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group commit: small pipeline writes that meet at the store's write lock share one bulkDocs
 * call. No timer and no waiting: the first write takes the lock at once, as it would alone;
 * writes arriving while a call is under way queue here, and the next turn of the lock stores
 * them all together (up to WRITE_CHUNK documents a call). A storage call costs far more than
 * the documents in it, so concurrent writers (a UI saving several forms, a server's requests)
 * cost about what one batch costs.
 *
 * Each write keeps its own outcome: its shares are prepared on their own (a taken key refuses
 * that write only), its part of the answer is read on its own, and a write that failed is undone
 * and settled alone (a revived create tried again, or its error thrown) while the others of the
 * call stand. A write with a guard (a transaction's commit) is never grouped: its check must see
 * every earlier write stored.
 */
export class CommitGroup {
  private waiting: Waiting[] = [];
  /** a turn of the lock is already queued for the waiting writes */
  private queued = false;

  constructor(private readonly deps: UnitDeps) {}

  submit(unit: Unit): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ unit, resolve, reject });
      this.queue();
    });
  }

  private queue(): void {
    if (this.queued) return;
    this.queued = true;
    // the writes a turn takes are answered once it gave the lock back: answered inside the turn, a
    // serial writer's next write found the lock still held — by the group's turn that answered
    // it — and went to the group, and so did every write after it (each a turn of the lock, an
    // async flush and its promises), until some pause let the lock go
    const outcomes: Outcome[] = [];
    const answer = (): void => {
      for (const outcome of outcomes) outcome();
    };
    this.deps.lock(() => this.flush(outcomes)).then(answer, answer);
  }

  /** Writes taken for this turn that must wait for the next one (first in line, in their order). */
  private putBack(writes: Waiting[]): void {
    this.waiting.unshift(...writes);
    this.queue();
  }

  /** Inside the lock: stores the writes waiting now (as many as fit in one call). */
  private async flush(outcomes: Outcome[]): Promise<void> {
    this.queued = false;
    const taken: Waiting[] = [];
    let size = 0;
    while (this.waiting.length > 0 && (taken.length === 0 || size + this.waiting[0].unit.items.length <= WRITE_CHUNK)) {
      const next = this.waiting.shift()!;
      taken.push(next);
      size += next.unit.items.length;
    }
    if (this.waiting.length > 0) this.queue();
    if (taken.length === 1) return settle(taken[0], storeLocked(this.deps, taken[0].unit), outcomes);
    await this.storeTogether(taken, outcomes);
  }

  private async storeTogether(taken: Waiting[], outcomes: Outcome[]): Promise<void> {
    // each write's shares prepared on their own: a refusal (a taken key) refuses that write only
    const ready: { waiting: Waiting; attempt: Attempt; added: UnitDoc[][] }[] = [];
    const ids = new Set<string>();
    for (let t = 0; t < taken.length; t++) {
      const waiting = taken[t];
      if (waiting.unit.items.some((item) => ids.has(item.doc._id))) {
        this.putBack(taken.slice(t));
        break;
      }
      try {
        await prepareShares(waiting.unit.shares);
        const attempt = newAttempt();
        const added = await shareDocs(waiting.unit.shares, 0, waiting.unit.items.length, attempt);
        if (!added) {
          await settle(waiting, storeLocked(this.deps, waiting.unit, attempt), outcomes);
          continue;
        }
        // PouchDB does not order two writes of one id within a call (two puts of one `_local`
        // document at one revision both "succeed"): a write that meets an id already in the call
        // goes to the next call, with shares begun anew
        if (waiting.unit.renew && added.some((list) => list.some((doc) => ids.has(doc._id)))) {
          waiting.unit.shares = await waiting.unit.renew();
          this.putBack(taken.slice(t));
          break;
        }
        for (const list of added) for (const doc of list) ids.add(doc._id);
        for (const item of waiting.unit.items) ids.add(item.doc._id);
        ready.push({ waiting, attempt, added });
      } catch (err) {
        outcomes.push(() => waiting.reject(err));
      }
    }
    if (ready.length === 0) return;
    const docs: object[] = [];
    for (const { waiting, added } of ready) {
      for (const list of added) for (const doc of list) docs.push({ ...doc });
      for (const item of waiting.unit.items) docs.push(item.doc);
    }
    let results: StoredResult[];
    try {
      results = await storeCall(this.deps.db, docs);
    } catch (err) {
      // the call itself failed (storage closed, quota): nothing of it is known stored
      for (const { waiting } of ready) outcomes.push(() => waiting.reject(err));
      return;
    }
    let offset = 0;
    for (const { waiting, attempt, added } of ready) {
      const length = added.reduce((n, list) => n + list.length, 0) + waiting.unit.items.length;
      absorb(attempt, waiting.unit.items, waiting.unit.shares, added, results.slice(offset, offset + length), 0);
      offset += length;
    }
    // every write of the call is read before any is settled: a failed one's undo is its own call
    for (const { waiting, attempt } of ready) await settle(waiting, storeLocked(this.deps, waiting.unit, attempt), outcomes);
  }
}

/** A write's answer, given once its turn of the lock is over (CommitGroup.queue). */
type Outcome = () => void;

/** A write's outcome, noted in `outcomes`. */
async function settle(waiting: Waiting, storing: Promise<void>, outcomes: Outcome[]): Promise<void> {
  try {
    await storing;
    outcomes.push(waiting.resolve);
  } catch (err) {
    outcomes.push(() => waiting.reject(err));
  }
}
