import type { Database } from './storage.js';

export interface ChangeEvent {
  id: string;
  seq: number | string;
  /** the winning revision after the change */
  rev: string;
  deleted: boolean;
}

export type ChangeListener = (change: ChangeEvent) => void;

/**
 * The one live `changes` feed of a stack. Every subscriber (class objects, caches, later the
 * session cache and live queries) listens here; nobody opens a feed of their own. The feed
 * carries ids and revisions only: a subscriber that needs a document reads it, so a bulk
 * write with nobody listening to documents costs one cheap event per change.
 */
export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private feed: PouchDB.Core.Changes<Record<string, unknown>> | null = null;
  private closed = false;

  constructor(private readonly db: Database) {}

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    this.ensureRunning();
    return () => {
      this.listeners.delete(listener);
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private ensureRunning(): void {
    if (this.feed || this.closed) return;
    const feed = this.db.changes({ since: 'now', live: true, return_docs: false });
    feed.on('change', (change) => {
      const event: ChangeEvent = {
        id: change.id,
        seq: change.seq,
        rev: change.changes[0]?.rev ?? '',
        deleted: change.deleted === true,
      };
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch {
          // a listener's own failure must not stop the feed for the others
        }
      }
    });
    // a closed database ends the feed with an error; nothing to recover then
    feed.on('error', () => {
      this.feed = null;
    });
    this.feed = feed;
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.feed?.cancel();
    this.feed = null;
  }
}
