import type { Storage } from '../storage/facade.js';

/** A system patch: data the engine needs, applied once per database, in id order. */
export interface SystemPatch {
  /** Stable, sortable id: `NNNN-what-it-does`. Never renumber a landed patch. */
  id: string;
  description: string;
  /**
   * Must be safe to run on a database that already received its result by replication. Writes
   * with `storage.put` (class documents, `_local` records: the engine's own documents).
   */
  apply(context: { storage: Storage; now: string }): Promise<void>;
}
