import { isClassDocId } from '../class-cache.js';
import { CLASS_META, SELF_META } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from '../../storage/raw-reads.js';

const INDEX_ID = '_local/~index/class-names';
const CHANGES_PAGE = 1000;

interface ClassNamesDoc {
  _id: string;
  _rev?: string;
  /** update sequence the index has seen */
  seq: number | string;
  names: string[];
}

/**
 * The names of the class documents, kept in a `_local` document and caught up from the
 * changes feed since the sequence it last saw. Class documents cannot be range-scanned
 * (their `_id` is the bare class name), and a scan of the whole database to list them would
 * grow with the documents; this grows with the changes since the last listing only.
 */
export class ClassNamesIndex {
  private pending: Promise<string[]> | null = null;

  constructor(private readonly db: Database) {}

  /** Names of the class documents that exist and are active (meta-classes included). */
  list(): Promise<string[]> {
    // concurrent callers share one catch-up
    this.pending ??= this.catchUp().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async catchUp(): Promise<string[]> {
    const index = await this.readIndex();
    // page through the changes: after a large import there may be millions of them
    const candidateSet = new Set<string>();
    let since = index.seq;
    for (;;) {
      const page = await this.db.changes({ since, limit: CHANGES_PAGE, return_docs: true });
      for (const change of page.results) if (isClassDocId(change.id)) candidateSet.add(change.id);
      since = page.last_seq;
      if (page.results.length < CHANGES_PAGE) break;
    }
    const candidates = [...candidateSet];
    const names = new Set(index.names);
    if (candidates.length > 0) {
      const rows = await this.db.allDocs({ keys: candidates, include_docs: true });
      for (const row of rows.rows) {
        if (!('doc' in row)) continue;
        const doc = row.doc as Record<string, unknown> | null | undefined;
        const isClass = doc && (doc['~class'] === CLASS_META || doc['~class'] === SELF_META) && doc.active !== false;
        if (isClass) names.add(row.key);
        else names.delete(row.key);
      }
    }
    const next: ClassNamesDoc = { ...index, seq: since, names: [...names].sort() };
    if (next.seq !== index.seq) {
      try {
        await this.db.put(next as never);
      } catch (err) {
        // a concurrent catch-up (another instance of the same database) wrote first; its
        // result is as good as ours and the next listing catches up from there
        if ((err as { status?: number }).status !== 409) throw err;
      }
    }
    return next.names;
  }

  private async readIndex(): Promise<ClassNamesDoc> {
    return (await readRaw<ClassNamesDoc>(this.db, INDEX_ID)) ?? { _id: INDEX_ID, seq: 0, names: [] };
  }
}
