import type { Clock } from './clock.js';
import type { Database } from './storage.js';

export interface ChangeEvent {
  id: string;
  seq: number | string;
  /** the winning revision after the change */
  rev: string;
  deleted: boolean;
}

export type ChangeListener = (change: ChangeEvent) => void;

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
 * the last one leaves.
 */
export class ChangeFeed {
  private readonly active = new Set<ChangeListener>();
  private readonly passive = new Set<ChangeListener>();
  private feed: PouchDB.Core.Changes<Record<string, unknown>> | null = null;
  private closed = false;

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

  private start(): void {
    if (this.feed || this.closed) return;
    this.startedAt = this.clock.now();
    const feed = this.db.changes({ since: 'now', live: true, return_docs: false });
    feed.on('change', (change) => {
      const event: ChangeEvent = {
        id: change.id,
        seq: change.seq,
        rev: change.changes[0]?.rev ?? '',
        deleted: change.deleted === true,
      };
      for (const listener of [...this.active, ...this.passive]) {
        try {
          listener(event);
        } catch {
          // a listener's own failure must not stop the feed for the others
        }
      }
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
