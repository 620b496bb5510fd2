import type { Database } from '../kernel/storage.js';

/** A system patch: data the engine needs, applied once per database, in id order. */
export interface SystemPatch {
  /** Stable, sortable id: `NNNN-what-it-does`. Never renumber a landed patch. */
  id: string;
  description: string;
  /** Must be safe to run on a database that already received its result by replication. */
  apply(context: { db: Database; now: string }): Promise<void>;
}
