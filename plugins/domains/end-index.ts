import type { End, RelationDoc } from './model.js';
import { KERNEL_ERRORS, type Clock, type Storage } from '../../index.js';
import { DOMAIN_ERRORS } from './errors.js';

/** One relation at one end: the relation's id and the document at the other end. */
export interface EndEntry {
  relationId: string;
  otherId: string;
  /** when the entry was added (ms, by the stack's clock); the relation document is written just after */
  at: number;
}

interface EndDoc {
  _id: string;
  _rev?: string;
  entries: EndEntry[];
}

/** An entry whose relation document is not written yet counts as taken for this long (its writer is mid-way). */
export const PENDING_GRACE_MS = 60_000;
const MAX_ATTEMPTS = 10;

/**
 * The relations at each end of each domain: one `_local` document per (domain, end, document)
 * listing the relations there. It is what makes cardinality hold under concurrency: adding a
 * relation rewrites the end's list at the revision it read, so of two writers adding at the
 * same moment one gets PouchDB's conflict, re-reads, and sees the other's relation. It also
 * answers "the relations of this document" (deletes, moves) without a scan. Like the
 * primary-key index it is each peer's own (`_local` documents do not replicate).
 */
export class EndIndex {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  private idOf(domain: string, end: End, docId: string): string {
    return `_local/~rel/${domain}/${end}/${docId}`;
  }

  /** Entries of relations that are active, or being written right now. */
  async live(domain: string, end: End, docId: string): Promise<EndEntry[]> {
    return this.filterLive((await this.read(domain, end, docId)).entries);
  }

  /**
   * Adds an entry, refusing a second relation to the same other document (DS_RELATION_EXISTS)
   * and, on a single end, any second live relation (DS_RELATION_CARDINALITY).
   */
  async add(domain: string, end: End, docId: string, entry: EndEntry, single: boolean): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.read(domain, end, docId);
      const live = await this.filterLive(doc.entries);
      if (live.some((e) => e.otherId === entry.otherId)) {
        throw DOMAIN_ERRORS.relationExists(`${docId} and ${entry.otherId} are already related in "${domain}".`, {
          details: { domain, [end === 'source' ? 'sourceId' : 'targetId']: docId, existing: live.find((e) => e.otherId === entry.otherId)?.relationId },
        });
      }
      if (single && live.length > 0) {
        throw DOMAIN_ERRORS.relationCardinality(
          `${docId} already has its one relation in "${domain}" (as ${end}, with ${live[0].otherId}); remove it first.`,
          { details: { domain, end, docId, existing: live[0].relationId } },
        );
      }
      if (await this.write({ ...doc, entries: [...live, entry] })) return;
    }
    throw KERNEL_ERRORS.docConflict(`Too many concurrent writers on the relations of ${docId} in "${domain}"; retry.`, { details: { domain, docId } });
  }

  async remove(domain: string, end: End, docId: string, relationId: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.read(domain, end, docId);
      const entries = doc.entries.filter((e) => e.relationId !== relationId);
      if (entries.length === doc.entries.length) return;
      if (await this.write({ ...doc, entries })) return;
    }
    throw KERNEL_ERRORS.docConflict(`Too many concurrent writers on the relations of ${docId} in "${domain}"; retry.`, { details: { domain, docId } });
  }

  /**
   * Records a relation that exists already (it arrived by replication): no cardinality check —
   * it is a fact on some peer; what the index must do is know it. Idempotent.
   */
  async ensure(domain: string, end: End, docId: string, entry: EndEntry): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.read(domain, end, docId);
      if (doc.entries.some((e) => e.relationId === entry.relationId)) return;
      if (await this.write({ ...doc, entries: [...doc.entries, entry] })) return;
    }
    throw KERNEL_ERRORS.docConflict(`Too many concurrent writers on the relations of ${docId} in "${domain}"; retry.`, { details: { domain, docId } });
  }

  private async write(doc: EndDoc): Promise<boolean> {
    try {
      await this.storage.put(doc);
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 409) return false;
      throw err;
    }
  }

  private async read(domain: string, end: End, docId: string): Promise<EndDoc> {
    const id = this.idOf(domain, end, docId);
    return (await this.storage.get<EndDoc>(id)) ?? { _id: id, entries: [] };
  }

  /** Drops entries whose relation is inactive, or missing past the grace period (a crash leftover). */
  private async filterLive(entries: EndEntry[]): Promise<EndEntry[]> {
    if (entries.length === 0) return entries;
    const docs = await this.storage.getMany<RelationDoc>(entries.map((e) => e.relationId));
    return entries.filter((entry, i) => {
      const doc = docs[i];
      if (doc) return doc.active !== false;
      return this.clock.now() - entry.at < PENDING_GRACE_MS;
    });
  }
}
