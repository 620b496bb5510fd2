import type { ClientStack, Doc, WriteRequest } from '../../index.js';
import type { KeyClaim } from '../../kit/index.js';

export const JOURNAL_ID = '_local/~tx/journal';

/** One document a commit writes: enough to tell, after a crash, whether it was written and undo it. */
export interface JournalOp {
  id: string;
  /** the revision before the commit; null for a document the transaction creates */
  prevRev: string | null;
}

/**
 * The one journal of a stack (a `_local` document: never replicated). `held` lists the primary
 * keys each running transaction claimed, recorded before they are claimed, so a crash never leaves
 * a claim nobody knows of; `commit` is the transaction being stored, if one is.
 */
export interface JournalDoc {
  _id: string;
  _rev?: string;
  held: Record<string, KeyClaim[]>;
  commit: { tx: string; ops: JournalOp[]; releases: KeyClaim[] } | null;
}

/**
 * Writes of the journal, one at a time (a promise chain): commits are serialized, so one journal
 * document is enough and its revision is known here.
 */
export class Journal {
  private tail: Promise<unknown> = Promise.resolve();
  private doc: JournalDoc = { _id: JOURNAL_ID, held: {}, commit: null };

  constructor(private readonly stack: ClientStack) {}

  /** Runs fn after every journal step queued before it. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  async load(): Promise<JournalDoc> {
    this.doc = (await this.stack.storage.get<JournalDoc>(JOURNAL_ID)) ?? { _id: JOURNAL_ID, held: {}, commit: null };
    return this.doc;
  }

  /** Records claims of a transaction before they are made. */
  hold(tx: string, claims: KeyClaim[]): Promise<void> {
    return this.serial(() => this.save({ ...this.doc.held, [tx]: [...(this.doc.held[tx] ?? []), ...claims] }, this.doc.commit));
  }

  /** Forgets a transaction (committed or aborted). */
  drop(tx: string): Promise<void> {
    if (!this.doc.held[tx] && this.doc.commit?.tx !== tx) return Promise.resolve();
    return this.serial(() => this.save(without(this.doc.held, tx), null));
  }

  /** The journal step of a commit (call inside serial): the ops to be written, before they are. */
  begin(tx: string, requests: WriteRequest[], releases: KeyClaim[]): Promise<void> {
    const ops = requests.map((r) => ({ id: r.draft._id, prevRev: r.previous?._rev ?? null }));
    return this.save(this.doc.held, { tx, ops, releases });
  }

  /** Marks the commit done and forgets the transaction (call inside serial). */
  end(tx: string): Promise<void> {
    return this.save(without(this.doc.held, tx), null);
  }

  async save(held: Record<string, KeyClaim[]>, commit: JournalDoc['commit']): Promise<void> {
    const next: JournalDoc = { _id: JOURNAL_ID, ...(this.doc._rev ? { _rev: this.doc._rev } : {}), held, commit };
    try {
      next._rev = await this.stack.storage.put(next);
    } catch (err) {
      // another instance of the same store wrote it: take its revision once
      if ((err as { status?: number }).status !== 409) throw err;
      const stored = await this.stack.storage.get<JournalDoc>(JOURNAL_ID);
      next._rev = await this.stack.storage.put({ ...next, _rev: stored?._rev });
    }
    this.doc = next;
  }
}

function without(held: Record<string, KeyClaim[]>, tx: string): Record<string, KeyClaim[]> {
  const { [tx]: _gone, ...rest } = held;
  return rest;
}

/** Is this stored document the one the transaction wrote? */
export function writtenBy(doc: Doc | null, tx: string): boolean {
  return doc?.['~tx']?.id === tx;
}
