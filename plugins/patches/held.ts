import type { IngestDoc } from '../../kernel/hooks.js';
import type { ClientStack } from '../../kernel/stack.js';
import type { Storage } from '../../kernel/storage-facade.js';

/** Refusals that mean "written against a schema this replica has not received yet". */
const SCHEMA_AHEAD = new Set(['DS_CLASS_NOT_FOUND', 'DS_VALIDATION_UNKNOWN_ATTRIBUTE']);
const HELD_ID = '_local/~patches-held';
/** Past this many, a document is refused as before rather than held (a bound on the local record). */
export const HELD_LIMIT = 5000;

interface HeldRecord {
  _id: string;
  _rev?: string;
  docs: IngestDoc[];
}

/**
 * A peer's document written against a newer schema (its class, or one of its attributes, has
 * not reached this replica yet — a patch or a class change still on its way) is kept here, in a
 * `_local` record that never replicates, instead of being refused and skipped for good by the
 * replicator's checkpoint. Each time a class document changes or a patch is applied here, the
 * held documents go through `stack.ingest` again: validated then, stored or — when the schema
 * that arrived still refuses them — dropped with a `patch:held-refused` event.
 */
export class HeldDocuments {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly stack: ClientStack,
    private readonly storage: Storage,
  ) {}

  /** The `hold` tap: true when the document is kept. */
  async hold(doc: IngestDoc, error: unknown): Promise<boolean | undefined> {
    if (!SCHEMA_AHEAD.has(String((error as { code?: unknown })?.code))) return undefined;
    let kept = false;
    await this.serial(async () => {
      const record = await this.read();
      if (record.docs.length >= HELD_LIMIT) return;
      record.docs = [...record.docs.filter((d) => d._id !== doc._id || d._rev !== doc._rev), doc];
      await this.storage.put(record);
      kept = true;
    });
    if (kept) this.stack.emit('patch:held', { id: doc._id, code: (error as { code?: string }).code });
    return kept || undefined;
  }

  /** The documents held now (ids and revisions), for tests and diagnostics. */
  async list(): Promise<{ id: string; rev: string | undefined }[]> {
    return (await this.read()).docs.map((d) => ({ id: d._id, rev: d._rev }));
  }

  /**
   * Ingests the held documents again (coalesced: a retry asked while one waits joins it). The
   * record is emptied first: what is still ahead of this replica's schema is held again by the
   * hold tap as ingest refuses it.
   */
  retry(): Promise<void> {
    if (this.waiting) return this.waiting;
    this.waiting = this.serial(async () => {
      this.waiting = null;
      const record = await this.read();
      this.taken = record.docs;
      if (record.docs.length > 0) await this.storage.put({ ...record, docs: [] });
    }).then(() => this.reingest());
    return this.waiting;
  }

  private waiting: Promise<void> | null = null;
  private taken: IngestDoc[] = [];

  private async reingest(): Promise<void> {
    const docs = this.taken.splice(0);
    if (docs.length === 0) return;
    const results = await this.stack.ingest(docs, { origin: 'replication', newEdits: false });
    results.forEach((r) => {
      if (!r.ok) this.stack.emit('patch:held-refused', { id: r.id, code: r.code, reason: r.reason });
    });
  }

  private async read(): Promise<HeldRecord> {
    return (await this.storage.get<HeldRecord>(HELD_ID)) ?? { _id: HELD_ID, docs: [] };
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
