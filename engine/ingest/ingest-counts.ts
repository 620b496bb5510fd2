import { counts } from '../indexes/class-counts.js';
import type { IngestDoc } from '../../kernel/hooks.js';
import type { Doc } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readWinners } from '../../storage/winners.js';

/** What a replicated revision does to its class's count, as far as it is known before storing. */
export interface RevisionCount {
  className: string;
  /** the change (-1, 0, +1), or null when only the stored outcome tells (conflicting branches) */
  delta: number | null;
}

/** Does this revision (with its `_revisions` history) descend from `rev`? */
export function descends(doc: IngestDoc, rev: string): boolean {
  const history = doc._revisions as { start?: number; ids?: string[] } | undefined;
  const dash = rev.indexOf('-');
  const pos = Number(rev.slice(0, dash));
  if (!history || typeof history.start !== 'number' || !Array.isArray(history.ids)) return false;
  const at = history.start - pos;
  return at > 0 && history.ids[at] === rev.slice(dash + 1);
}

/**
 * The count change of storing `doc` over `previous` (the live winner) or `tombstone` (the rev of
 * a deleted winner): known when the revision is the id's first, a repeat of the winner, or a
 * descendant of it; otherwise (a branch beside the winner, a tombstone on a doc that may have
 * other branches) the winner after the write decides, read once stored (settleCounts).
 */
export function revisionDelta(doc: IngestDoc, previous: Doc | undefined, tombstone: string | undefined, newEdits: boolean, repeated: boolean): number | null {
  if (repeated) return null;
  const before = counts(previous) ? 1 : 0;
  const after = counts(doc) ? 1 : 0;
  const parent = previous?._rev ?? tombstone;
  if (newEdits) return doc._rev === parent || (doc._rev === undefined && !previous) ? after - before : null;
  if (parent === undefined) return after;
  if (doc._rev === parent) return 0;
  if (!descends(doc, parent)) return null;
  if (doc._deleted === true && previous) return null; // another live branch may take over
  return after - before;
}

/**
 * The count change of each revision whose effect was unknown before storing: the id's winner
 * now (its revision and, when it is neither the stored one nor the one ingested, its body).
 */
export async function settleCounts(db: Database, unsettled: { doc: IngestDoc; rev: string; previous?: Doc; className: string }[]): Promise<Map<string, number>> {
  const deltas = new Map<string, number>();
  if (unsettled.length === 0) return deltas;
  const winners = await readWinners(db, unsettled.map((u) => u.doc._id));
  // an id settles once: two revisions of it in one batch (a peer's branch and the tombstone of
  // another, as a conflict resolution sends them) share one winner before and one after
  const settled = new Set<string>();
  for (let i = 0; i < unsettled.length; i++) {
    const { doc, rev, previous, className } = unsettled[i];
    if (settled.has(doc._id)) continue;
    settled.add(doc._id);
    const winner = winners.get(doc._id);
    let after: boolean;
    if (!winner || winner.deleted) after = false;
    else if (winner.rev === rev) after = counts(doc);
    else if (previous && winner.rev === previous._rev) after = counts(previous);
    else after = counts(winner.doc as { active?: unknown });
    const delta = (after ? 1 : 0) - (counts(previous) ? 1 : 0);
    if (delta !== 0) deltas.set(className, (deltas.get(className) ?? 0) + delta);
  }
  return deltas;
}
