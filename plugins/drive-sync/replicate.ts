import type { DriveAdapter, DriveCursor, DriveRetry } from './adapter.js';
import { DRIVE_ERRORS } from './errors.js';
import { fileNameOf, isDocFileName, mergeLeaves, parseDocFile, sameLeaves, serializeDocFile, type Leaf } from './layout.js';
import { type ClientStack, isDocstackError } from '../../index.js';
import { travelCheck } from '../../kit/index.js';

export interface DriveSyncOptions {
  adapter: DriveAdapter;
  /** documents (or drive files) per page; the push checkpoint is saved after each (default 50) */
  batchSize?: number;
  /** drive requests in flight at once (default 4) */
  concurrency?: number;
  /** how often one file is read, merged and written again after a 412 (default 8) */
  conflictRetries?: number;
}

export interface DriveSyncResult {
  /** revisions stored here from the drive */
  pulled: number;
  /** drive files written */
  pushed: number;
  /** revisions from the drive this stack refused (each reported as `drive:denied`) */
  denied: number;
}

/** `_local/~drive-sync/<adapter id>`: the drive's cursor and how far this store's changes were pushed. */
interface Checkpoint {
  _id: string;
  _rev?: string;
  cursor: DriveCursor | null;
  pushSeq: number | string;
}

/** Runs `work` over `items`, at most `limit` at once; the first failure rejects (after the others settle). */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && failure === null) {
      const i = next++;
      try {
        results[i] = await work(items[i]);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
  return results;
}

/**
 * One round of replication between a stack and a drive: pull (the files changed since the
 * cursor, their missing leaves ingested with `new_edits: false`), then push (the documents
 * changed here since the push checkpoint, each merged into its file with a conditional write).
 */
export class DriveReplicator {
  private readonly batch: number;
  private readonly concurrency: number;
  private readonly conflictRetries: number;
  /** what leaves the stack: not `_local`, engine class documents or ephemeral classes (kernel/travels.ts) */
  private readonly travels: (id: string) => Promise<boolean>;
  private readonly result: DriveSyncResult = { pulled: 0, pushed: 0, denied: 0 };

  constructor(
    private readonly stack: ClientStack,
    private readonly adapter: DriveAdapter,
    options: DriveSyncOptions,
    private readonly stopped: () => boolean,
  ) {
    this.travels = travelCheck(stack);
    this.batch = options.batchSize ?? 50;
    this.concurrency = options.concurrency ?? 4;
    this.conflictRetries = options.conflictRetries ?? 8;
  }

  private get checkpointId() {
    return `_local/~drive-sync/${this.adapter.id}`;
  }

  private async checkpoint(): Promise<Checkpoint> {
    return (await this.stack.storage.get<Checkpoint>(this.checkpointId)) ?? { _id: this.checkpointId, cursor: null, pushSeq: 0 };
  }

  private async save(changes: Partial<Checkpoint>): Promise<void> {
    const current = await this.checkpoint();
    await this.stack.storage.put({ ...current, ...changes });
  }

  async run(): Promise<DriveSyncResult> {
    await this.pull();
    await this.push();
    return this.result;
  }

  /** Stores the leaves this stack lacks (revsDiff), through `stack.ingest` like a replication pull. */
  private async ingestMissing(leaves: Leaf[]): Promise<void> {
    const wanted = [];
    for (const leaf of leaves) if (await this.travels(leaf._id)) wanted.push(leaf);
    if (wanted.length === 0) return;
    const asked: Record<string, string[]> = {};
    for (const leaf of wanted) (asked[leaf._id] ??= []).push(leaf._rev);
    const diff = await this.stack.storage.replication.revsDiff(asked);
    const missing = wanted.filter((l) => diff[l._id]?.missing?.includes(l._rev));
    if (missing.length === 0) return;
    const results = await this.stack.ingest(missing, { origin: 'replication', newEdits: false, keyConflicts: 'report' });
    results.forEach((line, i) => {
      if (line.ok) this.result.pulled += 1;
      else {
        this.result.denied += 1;
        this.stack.emit('drive:denied', { id: line.id, rev: missing[i]._rev, code: line.code, reason: line.reason });
      }
    });
  }

  private async pull(): Promise<void> {
    const { cursor } = await this.checkpoint();
    const listed = await this.adapter.changes(cursor);
    let complete = true;
    // class documents first (their names have no "-": a class name has none, a document id has
    // one): a document read in an early page must not be refused for a class read in a later one
    const isClassFile = (name: string) => !name.includes('-');
    const files = listed.files.filter((f) => isDocFileName(f.name)).sort((x, y) => Number(isClassFile(y.name)) - Number(isClassFile(x.name)));
    for (let i = 0; i < files.length && !this.stopped(); i += this.batch) {
      const read = await mapLimit(files.slice(i, i + this.batch), this.concurrency, (f) => this.adapter.read(f.name));
      const leaves: Leaf[] = [];
      read.forEach((file, k) => {
        if (file === null) return; // deleted since it was listed
        const parsed = parseDocFile(file.text);
        if (parsed) leaves.push(...parsed.leaves);
        else {
          // an upload cut short: its writer repairs it; until then the cursor does not pass it
          complete = false;
          this.stack.emit('drive:skipped', { name: files[i + k].name, etag: file.etag });
        }
      });
      await this.ingestMissing(leaves);
    }
    if (complete && !this.stopped()) await this.save({ cursor: listed.cursor });
  }

  private async push(): Promise<void> {
    let { pushSeq } = await this.checkpoint();
    while (!this.stopped()) {
      const page = await this.stack.storage.changes({ since: pushSeq, limit: this.batch });
      if (page.results.length === 0) return;
      const ids: string[] = [];
      for (const change of page.results) if (await this.travels(change.id)) ids.push(change.id);
      await mapLimit([...new Set(ids)], this.concurrency, (id) => this.pushDoc(id));
      pushSeq = page.lastSeq;
      await this.save({ pushSeq });
    }
  }

  private async localLeaves(id: string): Promise<Leaf[]> {
    const revs = await this.stack.storage.replication.openRevs(id, 'all', { revs: true });
    return revs.flatMap((r) => ('ok' in r ? [r.ok as Leaf] : []));
  }

  /**
   * Merges this document's leaves into its drive file: read it (ETag), take in what it has that
   * this store lacks, write the union if it adds anything, conditional on the ETag read. A 412
   * (another device wrote in between) starts over from the read.
   */
  private async pushDoc(id: string): Promise<void> {
    const name = await fileNameOf(id);
    for (let attempt = 1; ; attempt++) {
      const remote = await this.adapter.read(name);
      const parsed = remote && parseDocFile(remote.text);
      const remoteLeaves = parsed?.leaves ?? [];
      // the store then holds every leaf the file had: a file cut short is rebuilt whole from it
      await this.ingestMissing(remoteLeaves);
      const merged = mergeLeaves(remoteLeaves, await this.localLeaves(id));
      if (parsed && sameLeaves(remoteLeaves, merged)) return;
      try {
        await this.adapter.write(name, serializeDocFile(id, merged), remote?.etag ?? null);
        this.result.pushed += 1;
        return;
      } catch (err) {
        if (!isDocstackError(err, 'DS_DRIVE_PRECONDITION')) throw err;
        if (attempt > this.conflictRetries) {
          throw DRIVE_ERRORS.conflict(`${name} kept changing on the drive (${attempt} attempts).`, { details: { id, name, attempts: attempt } });
        }
        const retry: DriveRetry = { reason: 'precondition', status: 412, attempt, delayMs: 0, name };
        this.stack.emit('drive:retry', retry);
      }
    }
  }
}
