import type { Clock } from '../contracts/clock.js';
import type { Database } from './database.js';

export interface ChangeEvent {
  id: string;
  seq: number | string;
  /** the winning revision after the change */
  rev: string;
  deleted: boolean;
}

export type ChangeListener = (change: ChangeEvent) => void;

/** One document a write stored, as the feed announces it. */
export interface WrittenChange {
  id: string;
  rev: string;
  deleted: boolean;
}

/**
 * From this many documents in one write, the stack's own write is announced from what it wrote
 * rather than re-read by PouchDB's live feed (see ChangeFeed.ownWrite); below it the feed's
 * re-read is cheaper than the two `info` calls that make the hand-off safe.
 */
const OWN_WRITE_MIN = 50;

export interface SubscribeOptions {
  /**
   * A passive listener hears the feed while somebody else keeps it running, but does not
   * start it: caches that have another way to stay fresh use this.
   */
  passive?: boolean;
}

/**
 * The one live `changes` feed of a stack. Every subscriber (class objects, caches, later the
 * session cache and live queries) listens here; nobody opens a feed of their own.
 *
 * The feed is not free: after every write PouchDB re-reads the new changes from the by-sequence
 * store (document bodies included), which for a bulk insert costs about as much again as reading
 * the documents. So it runs only while at least one active listener wants it, and stops when
 * the last one leaves; and a large write of this stack is announced from what it wrote
 * (ownWrite), PouchDB's feed resuming after it.
 */
export class ChangeFeed {
  private readonly active = new Set<ChangeListener>();
  private readonly passive = new Set<ChangeListener>();
  private feed: PouchDB.Core.Changes<Record<string, unknown>> | null = null;
  private closed = false;
  /** the last sequence the feed delivered (or was resumed at) */
  private lastSeq = 0;
  /** an ownWrite is under way: the PouchDB feed is paused, and must not be restarted meanwhile */
  private paused = false;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  subscribe(listener: ChangeListener, options: SubscribeOptions = {}): () => void {
    const set = options.passive ? this.passive : this.active;
    set.add(listener);
    if (!options.passive) this.start();
    return () => {
      set.delete(listener);
      if (this.active.size === 0) this.stop();
    };
  }

  /** When the running feed started (ms, by the stack's clock), or 0: changes before it were not heard. */
  startedAt = 0;

  /** Is the feed running (so passive listeners hear every change)? */
  get running(): boolean {
    return this.feed !== null;
  }

  /**
   * Runs a write of this stack (inside the store's write lock) and, when the feed is running and
   * the write is large, announces its documents from what it wrote instead of letting PouchDB's
   * live feed read them all back: the feed is paused before the write and resumed after it. The
   * store's update sequence, read before and after, proves nobody else wrote in between (it
   * moved by exactly the documents written); when it did not, the feed resumes from before the
   * write and reads it back as usual, so no change is ever lost.
   */
  /** Would ownWrite take over a write of this size (the feed running, the write large)? Else the caller just writes. */
  takesOver(size: number): boolean {
    return this.feed !== null && !this.paused && size >= OWN_WRITE_MIN;
  }

  async ownWrite(size: number, write: () => Promise<WrittenChange[]>): Promise<void> {
    if (!this.feed || this.paused || size < OWN_WRITE_MIN) {
      await write();
      return;
    }
    const before = Number((await this.db.info()).update_seq);
    if (!this.feed || before !== this.lastSeq) {
      await write(); // the feed is still catching up on earlier changes: let it
      return;
    }
    this.pause();
    let written: WrittenChange[] | null = null;
    try {
      written = await write();
    } finally {
      const after = Number((await this.db.info()).update_seq);
      const gapless = written !== null && after - before === written.length;
      this.resume(gapless ? after : before);
      if (gapless) written!.forEach((w, i) => this.deliver({ ...w, seq: before + i + 1 }));
    }
  }

  private pause(): void {
    this.paused = true;
    this.feed?.cancel();
    this.feed = null;
  }

  private resume(since: number): void {
    this.paused = false;
    this.lastSeq = since;
    if (this.active.size > 0) this.start(since, this.startedAt === 0);
  }

  private deliver(event: ChangeEvent): void {
    const seq = Number(event.seq);
    if (seq > this.lastSeq) this.lastSeq = seq;
    for (const listener of [...this.active, ...this.passive]) {
      try {
        listener(event);
      } catch {
        // a listener's own failure must not stop the feed for the others
      }
    }
  }

  private start(since: number | 'now' = 'now', fresh = true): void {
    if (this.feed || this.closed || this.paused) return;
    if (fresh) this.startedAt = this.clock.now();
    if (since === 'now') void this.db.info().then((info) => (this.lastSeq = Math.max(this.lastSeq, Number(info.update_seq))), () => undefined);
    const feed = this.db.changes({ since, live: true, return_docs: false });
    feed.on('change', (change) => {
      this.deliver({
        id: change.id,
        seq: change.seq,
        rev: change.changes[0]?.rev ?? '',
        deleted: change.deleted === true,
      });
    });
    // a closed database ends the feed with an error; nothing to recover then
    feed.on('error', () => {
      if (this.feed === feed) this.feed = null;
    });
    this.feed = feed;
  }

  private stop(): void {
    this.feed?.cancel();
    this.feed = null;
    this.startedAt = 0;
  }

  close(): void {
    this.closed = true;
    this.active.clear();
    this.passive.clear();
    this.stop();
  }
}
