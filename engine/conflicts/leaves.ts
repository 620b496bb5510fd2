import type { Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';

/** One leaf of a document's revision tree, with the revisions it descends from. */
export interface Leaf {
  rev: string;
  /** the leaf's body as stored (sealed values sealed), without `_revisions` */
  doc: Doc;
  /** its revision and every ancestor revision the store knows, newest first */
  history: string[];
}

/** The leaves named (the winner and its conflicting leaves), each with its history; a leaf gone meanwhile is left out. */
export async function readLeaves(db: Database, id: string, revs: readonly string[]): Promise<Leaf[]> {
  const found = (await db.get(id, { open_revs: [...revs], revs: true })) as unknown as Array<{ ok?: Doc & { _revisions?: { start: number; ids: string[] } } }>;
  const leaves: Leaf[] = [];
  for (const entry of found) {
    if (!entry.ok || (entry.ok as { _deleted?: boolean })._deleted) continue;
    const { _revisions, ...doc } = entry.ok;
    const history = _revisions ? _revisions.ids.map((hash, i) => `${_revisions.start - i}-${hash}`) : [String(doc._rev)];
    leaves.push({ rev: String(doc._rev), doc: doc as Doc, history });
  }
  return leaves;
}

/**
 * The newest revision every leaf descends from (their common ancestor in the revision tree), or
 * null when their histories share none (two creates of one natural key, or histories pruned).
 */
export function commonAncestor(leaves: readonly Leaf[]): string | null {
  if (leaves.length === 0) return null;
  const [first, ...rest] = leaves;
  const others = rest.map((leaf) => new Set(leaf.history));
  return first.history.find((rev) => others.every((set) => set.has(rev))) ?? null;
}

/** A revision's body when the store still holds it (not compacted, not only known by id); null otherwise. */
export async function readRevision(db: Database, id: string, rev: string): Promise<Doc | null> {
  try {
    const doc = (await db.get(id, { rev })) as unknown as Doc & { _deleted?: boolean };
    return doc._deleted ? null : doc;
  } catch {
    return null; // 'missing': a peer sent only the leaf, or compaction removed the body
  }
}

/** PouchDB's order of revisions: the higher generation, then the greater hash (how it picks a winner). */
export function compareRevs(a: string, b: string): number {
  const [pa, ha] = [parseInt(a, 10), a.slice(a.indexOf('-') + 1)];
  const [pb, hb] = [parseInt(b, 10), b.slice(b.indexOf('-') + 1)];
  return pa !== pb ? pa - pb : ha < hb ? -1 : ha > hb ? 1 : 0;
}
