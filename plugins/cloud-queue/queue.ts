import type { CloudAuth } from './auth.js';
import { CLOUD_ERRORS } from './errors.js';
import type { ClientStack } from '../../index.js';
import { travelCheck } from '../../kit/index.js';

export const CHECKPOINT_ID = '_local/~cloud-queue';

/** `_local/~cloud-queue`: the change-feed sequence everything before which the endpoint has. */
interface Checkpoint {
  _id: string;
  _rev?: string;
  seq: number | string;
  /** the endpoint it counts for: a queue pointed elsewhere starts again from the beginning */
  target: string;
}

export interface FlushResult {
  /** document revisions sent */
  sent: number;
  /** batches the endpoint took */
  batches: number;
  /** writes still queued after the flush (see `pending`) */
  pending: number;
}

export interface QueueSettings {
  /** the database URL, without credentials */
  url: string;
  batchSize: number;
  auth: CloudAuth;
  fetch: typeof fetch;
}

/**
 * The queue is the store's own changes feed after a `_local` checkpoint: nothing is copied
 * aside, so a crash cannot lose a queued change. A flush sends the next batch — every leaf
 * revision of each changed document, with its `_revisions` — as `_bulk_docs` with
 * `new_edits: false`, then moves the checkpoint past it. Killed between the two, the batch is
 * sent again: the endpoint already has those revisions and stores nothing twice.
 */
export class CloudQueue {
  /** what leaves the stack: not `_local`, engine class documents or ephemeral classes (kernel/travels.ts) */
  private readonly travels: (id: string) => Promise<boolean>;

  constructor(
    private readonly stack: ClientStack,
    private readonly settings: QueueSettings,
  ) {
    this.travels = travelCheck(stack);
  }

  private async checkpoint(): Promise<Checkpoint> {
    const stored = await this.stack.storage.get<Checkpoint>(CHECKPOINT_ID);
    if (stored && stored.target === this.settings.url) return stored;
    return { _id: CHECKPOINT_ID, ...(stored?._rev ? { _rev: stored._rev } : {}), seq: 0, target: this.settings.url };
  }

  /** Writes after the checkpoint: each stored write of a document counts once (an upper bound on what a flush sends). */
  async pending(): Promise<number> {
    const [{ seq }, { updateSeq }] = await Promise.all([this.checkpoint(), this.stack.storage.info()]);
    if (typeof seq === 'number' && typeof updateSeq === 'number') return Math.max(0, updateSeq - seq);
    let count = 0;
    for (let since: number | string = seq; ; ) {
      const page = await this.stack.storage.changes({ since, limit: 1000 });
      if (page.results.length === 0) return count;
      count += page.results.length;
      since = page.lastSeq;
    }
  }

  /**
   * Sends batches until the queue is empty (or `stop()` says so). A batch the endpoint did not
   * take throws (DS_CLOUD_HTTP, DS_CLOUD_AUTH) and stays queued. Documents it took but refused one
   * by one are reported to `onRejected` and not sent again.
   */
  async flush(stop: () => boolean, onBatch: (sent: number, seq: number | string) => void, onRejected: (line: Record<string, unknown>) => void): Promise<Omit<FlushResult, 'pending'>> {
    let checkpoint = await this.checkpoint();
    let sent = 0;
    let batches = 0;
    while (!stop()) {
      const page = await this.stack.storage.changes({ since: checkpoint.seq, limit: this.settings.batchSize });
      if (page.results.length === 0) break;
      const ids: string[] = [];
      for (const change of page.results) if (await this.travels(change.id)) ids.push(change.id);
      const docs = await this.leaves([...new Set(ids)]);
      if (docs.length > 0) {
        for (const line of await this.post(docs)) onRejected(line);
      }
      checkpoint = { ...checkpoint, seq: page.lastSeq };
      checkpoint._rev = await this.stack.storage.put(checkpoint);
      sent += docs.length;
      batches += 1;
      onBatch(docs.length, page.lastSeq);
    }
    return { sent, batches };
  }

  /** Every leaf of each document (conflicts and deleted leaves too), with its revision path. */
  private async leaves(ids: string[]): Promise<Record<string, unknown>[]> {
    const docs: Record<string, unknown>[] = [];
    for (const id of ids) {
      for (const found of await this.stack.storage.replication.openRevs(id, 'all', { revs: true })) {
        if ('ok' in found) docs.push(found.ok);
      }
    }
    return docs;
  }

  /** `POST <url>/_bulk_docs` with `new_edits: false`; a 401/403 gets one fresh token. Returns the refused lines. */
  private async post(docs: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
    const { url, auth } = this.settings;
    const send = async () => {
      const authorization = await auth.header();
      try {
        return await this.settings.fetch(`${url}/_bulk_docs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ docs, new_edits: false }),
        });
      } catch (err) {
        throw CLOUD_ERRORS.http(`${new URL(url).origin} could not be reached (${(err as Error).message}).`);
      }
    };
    let res = await send();
    if (res.status === 401) {
      await res.body?.cancel().catch(() => undefined);
      auth.invalidate(); // an expired or revoked token: exchange the key again, once
      res = await send();
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => undefined);
      throw CLOUD_ERRORS.auth(`${new URL(url).origin} refused the credentials (HTTP ${res.status}).`, { details: { status: res.status } });
    }
    if (!res.ok) {
      const reason = await res.text().catch(() => '');
      throw CLOUD_ERRORS.http(`${new URL(url).origin} answered HTTP ${res.status} to _bulk_docs.`, { details: { status: res.status, reason: reason.slice(0, 200) } });
    }
    const lines = (await res.json().catch(() => [])) as unknown;
    return Array.isArray(lines) ? lines.filter((l): l is Record<string, unknown> => !!l && typeof l === 'object' && 'error' in l) : [];
  }
}
