import type { ClientStack } from '../../index.js';

const OWNER_PREFIX = '_local/~quota/doc/';

/** Who created a document through the node: the user its documents and bytes are charged to. */
interface OwnerRecord {
  _id: string;
  _rev?: string;
  owner: string;
}

/**
 * The `_local/~quota/doc/<id>` records naming the user who created each document through the
 * node (quotas count its updates and deletes for that user). A push of 10,000 new documents makes
 * 10,000 of them: written one `put` each, they cost the push about a tenth of its time, so they
 * are queued and written together: the replication endpoint writes them before it answers a push
 * (Quotas.settle, with the usage counters), other writes within a turn of the event loop. Until
 * then `ownerOf` answers from the queue.
 */
export class OwnerRecords {
  private readonly queued = new Map<string, string>();
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly stack: ClientStack,
    private readonly onError: (err: Error) => void,
  ) {}

  async ownerOf(docId: string): Promise<string | null> {
    const queued = this.queued.get(docId);
    if (queued !== undefined) return queued;
    return (await this.stack.storage.get<OwnerRecord>(`${OWNER_PREFIX}${docId}`))?.owner ?? null;
  }

  record(docId: string, owner: string): void {
    this.queued.set(docId, owner);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush().catch(this.onError);
    });
  }

  /** Writes what is queued (after any write under way); resolves once it is stored. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeQueued());
    return this.writing;
  }

  private async writeQueued(): Promise<void> {
    if (this.queued.size === 0) return;
    const batch = [...this.queued];
    const records: OwnerRecord[] = batch.map(([docId, owner]) => ({ _id: `${OWNER_PREFIX}${docId}`, owner }));
    const results = await this.stack.storage.putMany(records);
    // a record left by a document that was purged: replaced at its revision
    const stale = records.filter((_, i) => 'error' in results[i]! && (results[i] as { status?: number }).status === 409);
    for (const record of stale) {
      const stored = await this.stack.storage.get<OwnerRecord>(record._id);
      await this.stack.storage.put({ ...record, ...(stored?._rev ? { _rev: stored._rev } : {}) });
    }
    const failed = records.find((_, i) => 'error' in results[i]! && (results[i] as { status?: number }).status !== 409);
    // forgotten from the queue only once stored (a newer owner queued meanwhile stays)
    for (const [docId, owner] of batch) if (this.queued.get(docId) === owner) this.queued.delete(docId);
    if (failed) throw new Error(`an owner record could not be stored (${failed._id})`);
  }
}
