import type { ClientStack } from '../../index.js';
import { isEachPeersOwnClassDoc } from '../../kit/index.js';

const STATE_ID = '_local/~sync/state';

/** What this stack remembers of each remote (and scope) it syncs with, in one `_local` document. */
interface RemoteState {
  /** every local change up to this sequence is on the remote (pushed, pulled from it, or never sent) */
  verifiedSeq: number;
  lastSuccess: string | null;
}

/**
 * Counts the local changes a push has not sent yet: the changes after the last sequence known
 * to be on the remote, less those that never leave (the push filter) and each peer's own engine
 * documents (kernel isEachPeersOwnClassDoc), less the revisions this
 * sync pulled from the remote (they are there already) and the documents it refused. The sequence is moved on as far as
 * every change is accounted for and kept per remote, so the next sync starts counting there.
 */
export class PendingCounter {
  private verifiedSeq = 0;
  private readonly pulledRevs = new Set<string>();
  private readonly refusedIds = new Set<string>();
  private running: Promise<number> | null = null;
  private again = false;
  private saved: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly stack: ClientStack,
    private readonly key: string,
    /** would the push send a change of this id (a tombstone-like probe: by id alone)? */
    private readonly travels: (id: string) => boolean,
  ) {}

  /** The state kept for this remote (its last success), and the counting start. */
  async load(): Promise<{ lastSuccess: string | null }> {
    const state = (await this.stack.storage.get<{ remotes?: Record<string, RemoteState> }>(STATE_ID))?.remotes?.[this.key];
    this.verifiedSeq = state?.verifiedSeq ?? 0;
    return { lastSuccess: state?.lastSuccess ?? null };
  }

  /** Revisions the pull stored here: they came from the remote. */
  pulled(lines: ReadonlyArray<{ id?: unknown; rev?: unknown; ok?: unknown }>): void {
    for (const line of lines) if (line?.ok && typeof line.id === 'string' && typeof line.rev === 'string') this.pulledRevs.add(`${line.id}@${line.rev}`);
  }

  /** The remote refused the push of this document (this sync): it is refused, not pending. */
  refusedOnPush(id: string): void {
    this.refusedIds.add(id);
  }

  /** The push checkpointed at `seq`: every change up to it was sent (or filtered out). */
  pushedUpTo(seq: unknown): void {
    const n = typeof seq === 'number' ? seq : Number.parseInt(String(seq), 10);
    if (Number.isFinite(n) && n > this.verifiedSeq) this.verifiedSeq = n;
  }

  /** Counts (one count at a time; a call meanwhile runs one more after it). */
  count(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      try {
        let total = 0;
        do {
          this.again = false;
          total = await this.countOnce();
        } while (this.again);
        return total;
      } finally {
        // at once, not a tick later: a call after this count ended must count again
        this.running = null;
      }
    })();
    this.running = run;
    return run;
  }

  private async countOnce(): Promise<number> {
    // what the pull and the push told before this count: a revision pulled while it reads the
    // feed may land after the page it read, so only these may be forgotten at the end
    const knownPulled = [...this.pulledRevs];
    const knownRefused = [...this.refusedIds];
    let since: number | string = this.verifiedSeq;
    let pending = 0;
    let prefixDone = true;
    for (;;) {
      const page = await this.stack.storage.changes({ since, limit: 1000 });
      for (const change of page.results) {
        // each peer's own meta-class and engine class documents: the remote makes its own (a node
        // ignores ours, so its revisions stay "missing" there and the pull adds the remote's as a
        // losing leaf, a new change here): never the app's pending work
        const accounted =
          !this.travels(change.id) || isEachPeersOwnClassDoc(change.id) || this.pulledRevs.has(`${change.id}@${change.rev}`) || this.refusedIds.has(change.id);
        if (!accounted) {
          pending += 1;
          prefixDone = false;
        } else if (prefixDone) this.pushedUpTo(change.seq);
      }
      if (page.results.length < 1000) break;
      since = page.lastSeq;
    }
    // everything up to the end of the feed is on the remote: what was remembered to tell so is not needed
    if (pending === 0) {
      for (const key of knownPulled) this.pulledRevs.delete(key);
      for (const id of knownRefused) this.refusedIds.delete(id);
    }
    return pending;
  }

  /** Keeps the counting start and the last success for the next sync to this remote. */
  save(lastSuccess: string | null): Promise<void> {
    const state: RemoteState = { verifiedSeq: this.verifiedSeq, lastSuccess };
    const run = this.saved.then(async () => {
      const doc = await this.stack.storage.get<{ _id: string; _rev: string; remotes?: Record<string, RemoteState> }>(STATE_ID);
      await this.stack.storage.put({ _id: STATE_ID, ...(doc ? { _rev: doc._rev } : {}), remotes: { ...(doc?.remotes ?? {}), [this.key]: state } });
    });
    this.saved = run.catch(() => undefined);
    return run;
  }
}
