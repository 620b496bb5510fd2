import { isEngineClassName, type Doc } from '../../contracts/model.js';
import type { Entry } from './ingest-store.js';

/** Does a revision a peer sent descend from `rev` (its `_revisions` name it), or is it `rev` itself? */
function descendsFrom(doc: Record<string, unknown>, rev: string): boolean {
  if (doc._rev === rev) return true;
  const revisions = doc._revisions as { start?: number; ids?: string[] } | undefined;
  if (!revisions || typeof revisions.start !== 'number' || !Array.isArray(revisions.ids)) return false;
  const at = revisions.start - parseInt(rev, 10);
  return at >= 0 && revisions.ids[at] === rev.slice(rev.indexOf('-') + 1);
}

/**
 * The documents an ingest may have put in conflict: a revision stored beside the winner it found
 * (not descending from it), or two revisions of one id in the batch. Only these are read again
 * with their conflicts; a peer's edit on top of what is here (the common case) costs nothing.
 */
export function arrivedBeside(written: readonly Entry[], winners: ReadonlyMap<string, Doc>): string[] {
  const seen = new Set<string>();
  const beside = new Set<string>();
  for (const entry of written) {
    if (entry.kind !== 'document') continue;
    const { _id: id } = entry.doc;
    const className = entry.doc['~class'];
    if (typeof className === 'string' && isEngineClassName(className)) continue;
    const before = winners.get(id);
    if (seen.has(id) || (before && !descendsFrom(entry.doc, String(before._rev)))) beside.add(id);
    seen.add(id);
  }
  return [...beside];
}
