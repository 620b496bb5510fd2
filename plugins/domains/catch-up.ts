import type { EndIndex } from './end-index.js';
import type { RelationDoc } from './model.js';
import type { ClientStack } from '../../index.js';

const CHECKPOINT_ID = '_local/~index/relations';
const PAGE = 1000;

interface Checkpoint {
  _id: string;
  _rev?: string;
  seq: number | string;
}

/**
 * Keeps the end index exact for relations this stack did not write itself — those that arrive
 * by replication (stack.sync on a client, `_bulk_docs` on a node): before the index is read,
 * the changes since the last checkpoint are scanned for relation ids and each relation found
 * is recorded at both ends (or removed, when inactive). The scan costs the changes since the
 * last one, ids only; concurrent callers share one scan.
 */
export class RelationCatchUp {
  private pending: Promise<void> | null = null;

  constructor(
    private readonly stack: ClientStack,
    private readonly ends: EndIndex,
  ) {}

  run(): Promise<void> {
    this.pending ??= this.scan().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async scan(): Promise<void> {
    const { storage } = this.stack;
    const checkpoint = await this.read();
    let since = checkpoint.seq;
    for (;;) {
      const page = await storage.changes({ since, limit: PAGE });
      const ids = [...new Set(page.results.map((c) => c.id).filter((id) => id.startsWith('~rel-')))];
      if (ids.length > 0) {
        for (const relation of await storage.getMany<RelationDoc>(ids)) if (relation) await this.record(relation);
      }
      since = page.lastSeq;
      if (page.results.length < PAGE) break;
    }
    if (since !== checkpoint.seq) {
      try {
        await storage.put({ ...checkpoint, seq: since });
      } catch (err) {
        if ((err as { status?: number }).status !== 409) throw err; // another scan saved as much
      }
    }
  }

  private async record(relation: RelationDoc): Promise<void> {
    const domain = relation['~domain'];
    const at = Date.parse(relation['~createTimestamp']) || this.stack.clock.now();
    if (relation.active) {
      await this.ends.ensure(domain, 'source', relation.sourceId, { relationId: relation._id, otherId: relation.targetId, at });
      await this.ends.ensure(domain, 'target', relation.targetId, { relationId: relation._id, otherId: relation.sourceId, at });
    } else {
      await this.ends.remove(domain, 'source', relation.sourceId, relation._id);
      await this.ends.remove(domain, 'target', relation.targetId, relation._id);
    }
  }

  private async read(): Promise<Checkpoint> {
    return (await this.stack.storage.get<Checkpoint>(CHECKPOINT_ID)) ?? { _id: CHECKPOINT_ID, seq: 0 };
  }
}
