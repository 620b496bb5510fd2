import type { Doc } from '../contracts/model.js';
import type { Database } from './database.js';

/** An id's winning revision, as `allDocs({ keys })` answers it: absent when the id was never stored. */
export interface Winner {
  rev: string;
  deleted: boolean;
  /** the winning revision's body; null for a deleted winner */
  doc: Doc | null;
}

/**
 * The winning revision of each id (ids of `_local` documents excepted: they have none), what
 * `allDocs({ keys, include_docs })` reads — with one `get` per id instead. PouchDB's keys path
 * opens a store iterator per key; on leveldb a get costs a fraction of that, and a replicated push
 * of 10,000 documents read 20,000 winners that way (bench/replication, docs/benchmarks.md). A
 * get does not tell a deleted winner's revision: those few are read through `allDocs`.
 */
export async function readWinners(db: Database, ids: readonly string[]): Promise<Map<string, Winner>> {
  const winners = new Map<string, Winner>();
  const unique = [...new Set(ids)].filter((id) => !id.startsWith('_local/'));
  const deleted: string[] = [];
  await Promise.all(
    unique.map(async (id) => {
      try {
        const doc = (await db.get(id)) as unknown as Doc;
        winners.set(id, { rev: doc._rev as string, deleted: false, doc });
      } catch (err) {
        const { status, reason } = err as { status?: number; reason?: string };
        if (status !== 404) throw err;
        if (reason === 'deleted') deleted.push(id);
      }
    }),
  );
  if (deleted.length > 0) {
    const { rows } = await db.allDocs({ keys: deleted });
    for (const row of rows as Array<{ id?: string; value?: { rev: string; deleted?: boolean } }>) {
      if (row.id && row.value) winners.set(row.id, { rev: row.value.rev, deleted: row.value.deleted === true, doc: null });
    }
  }
  return winners;
}

/** The winning stored revision of each id (absent when new or deleted), and the revision of each deleted winner: what ingest compares a peer's revisions with. */
export async function storedWinners(db: Database, ids: string[]): Promise<{ found: Map<string, Doc>; tombstones: Map<string, string> }> {
  const found = new Map<string, Doc>();
  const tombstones = new Map<string, string>();
  if (ids.length === 0) return { found, tombstones };
  for (const [id, winner] of await readWinners(db, ids)) {
    if (winner.doc) found.set(id, winner.doc);
    else if (winner.deleted) tombstones.set(id, winner.rev);
  }
  return { found, tombstones };
}
