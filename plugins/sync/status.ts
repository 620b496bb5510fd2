import type { DocstackError } from '../../index.js';

export type SyncDirection = 'push' | 'pull';

/**
 * A document one side refused for a real reason (authorization, validation, a key another
 * document holds, a quota): it will not arrive by syncing again; the application fixes or
 * removes it (docs/replication.md#what-a-ui-shows).
 */
export interface SyncRefusal {
  id: string;
  rev?: string;
  /** the engine's code (`DS_UNIQUE_VIOLATION`, `DS_AUTHZ_SCHEMA`…); null from a remote that gives none */
  code: string | null;
  reason: string;
  status: number | null;
  /** push: the remote refused it; pull: this stack refused what the remote sent */
  direction: SyncDirection;
  at: string;
}

/** @deprecated the old name of SyncRefusal (a push refusal) */
export type DeniedPush = SyncRefusal;

/**
 * A document accepted but not yet applied: it waits for what it needs (its class, a foreign-key
 * target, a domain, a relation end) and is applied when that arrives. Not an error: a UI shows
 * it as "waiting" (docs/replication.md#what-a-ui-shows).
 */
export interface HeldDocument {
  id: string;
  rev?: string;
  code: string;
  reason: string;
  /** the ids (or class names) it waits for */
  waitingFor: string[];
  /** local: this stack holds what it pulled; remote: the node holds what this stack pushed */
  where: 'local' | 'remote';
  since: string;
}

export type SyncState = 'starting' | 'active' | 'paused' | 'complete' | 'cancelled' | 'error';

/** What a UI needs of a sync: `stack.sync` resolves with it; a live sync emits it (`status`). */
export interface SyncStatus {
  /** paused: a live sync is idle (or, with `error`, offline and retrying) */
  state: SyncState;
  /** documents this sync sent that the remote accepted (held ones included) */
  pushed: number;
  /** documents this sync received that this stack accepted (held ones included) */
  pulled: number;
  held: HeldDocument[];
  /** this sync's refusals, both directions (the last of each document); `denied()` keeps them */
  refused: SyncRefusal[];
  /** local changes the push has not sent yet (null until counted) */
  pendingLocal: number | null;
  /** when a round last finished without error (ISO), kept across syncs to the same remote */
  lastSuccess: string | null;
  /** the current error: a one-shot sync rejects with it; a live sync retries (state paused) */
  error: DocstackError | null;
  /** false as soon as a document was refused or the sync failed: not a plain success */
  ok: boolean;
}

/** A finished one-shot sync (or a cancelled live one): the status, with PouchDB's own results. */
export interface SyncResult extends SyncStatus {
  push?: unknown;
  pull?: unknown;
  cancelled?: boolean;
}

/** A line of an ingest answer or a `_bulk_docs` answer that may say it was held. */
export interface MaybeHeldLine {
  id?: unknown;
  rev?: unknown;
  ok?: unknown;
  error?: unknown;
  held?: { code?: unknown; reason?: unknown; waitingFor?: unknown } | null;
}

/**
 * The status of one sync, changed by what the replicator, the ingest answers and the remote's
 * `_bulk_docs` answers say; every change is handed to `publish` (the handle's `status` event).
 */
export class StatusTracker {
  private state: SyncState = 'starting';
  private pushed = 0;
  private pulled = 0;
  private readonly held = new Map<string, HeldDocument>();
  private readonly refused = new Map<string, SyncRefusal>();
  private pendingLocal: number | null = null;
  private error: DocstackError | null = null;

  constructor(
    private readonly now: () => string,
    private readonly publish: (status: SyncStatus) => void,
    private lastSuccess: string | null = null,
  ) {}

  /** The last success this stack remembers of the remote (kept across syncs). */
  remembered(lastSuccess: string | null): void {
    if (this.lastSuccess === null && lastSuccess !== null) {
      this.lastSuccess = lastSuccess;
      this.changed();
    }
  }

  snapshot(): SyncStatus {
    const refused = [...this.refused.values()];
    return {
      state: this.state,
      pushed: this.pushed,
      pulled: this.pulled,
      held: [...this.held.values()],
      refused,
      pendingLocal: this.pendingLocal,
      lastSuccess: this.lastSuccess,
      error: this.error,
      ok: refused.length === 0 && this.error === null,
    };
  }

  setState(state: SyncState, error: DocstackError | null = null): void {
    if (state === this.state && error === this.error) return;
    this.state = state;
    this.error = error;
    if (error === null && (state === 'paused' || state === 'complete')) this.lastSuccess = this.now();
    this.changed();
  }

  /** A round failed but goes on (a live sync retrying): the state stays, the error shows. */
  setError(error: DocstackError): void {
    this.error = error;
    this.changed();
  }

  written(direction: SyncDirection, count: number): void {
    if (count === 0) return;
    if (direction === 'push') this.pushed += count;
    else this.pulled += count;
    if (this.error !== null) this.error = null; // a batch went through: the remote answers again
    this.changed();
  }

  refuse(entry: SyncRefusal): void {
    this.held.delete(`${entry.direction === 'pull' ? 'local' : 'remote'}:${entry.id}`);
    this.refused.set(`${entry.direction}:${entry.id}`, entry);
    this.changed();
  }

  /** Lines stored (or held) on one side: held ones are listed, stored ones leave the list. */
  lines(where: HeldDocument['where'], lines: readonly MaybeHeldLine[]): void {
    let changed = false;
    for (const line of lines) {
      if (typeof line?.id !== 'string' || line.error) continue;
      const key = `${where}:${line.id}`;
      const held = line.held;
      if (held && typeof held === 'object') {
        this.held.set(key, {
          id: line.id,
          ...(typeof line.rev === 'string' ? { rev: line.rev } : {}),
          code: String(held.code ?? 'held'),
          reason: String(held.reason ?? 'waiting for what it needs'),
          waitingFor: Array.isArray(held.waitingFor) ? held.waitingFor.map(String) : [],
          where,
          since: this.now(),
        });
        changed = true;
      } else if (this.held.delete(key)) changed = true;
    }
    if (changed) this.changed();
  }

  /** Held documents this stack already had when the sync started (`stack.heldDocuments()`). */
  seedHeld(entries: readonly HeldDocument[]): void {
    for (const entry of entries) this.held.set(`${entry.where}:${entry.id}`, entry);
    if (entries.length > 0) this.changed();
  }

  /**
   * A held document was applied (locally: `ingest:released`; remotely: the node's feed lists it).
   * With `revs` (the feed's leaves) only the held revision counts: an older one of the same
   * document is listed while the new one waits.
   */
  release(where: HeldDocument['where'], id: string, revs?: readonly string[]): void {
    const entry = this.held.get(`${where}:${id}`);
    if (!entry || (revs && entry.rev !== undefined && !revs.includes(entry.rev))) return;
    this.held.delete(`${where}:${id}`);
    this.changed();
  }

  isHeld(where: HeldDocument['where'], id: string): boolean {
    return this.held.has(`${where}:${id}`);
  }

  hasRemoteHeld(): boolean {
    for (const entry of this.held.values()) if (entry.where === 'remote') return true;
    return false;
  }

  setPending(count: number): void {
    if (count === this.pendingLocal) return;
    this.pendingLocal = count;
    this.changed();
  }

  private changed(): void {
    this.publish(this.snapshot());
  }
}
