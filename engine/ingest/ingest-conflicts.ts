import { isEngineClassName, type Doc } from '../../contracts/model.js';
import type { Entry } from './ingest-store.js';
import { descends } from './ingest-counts.js';

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
    if (seen.has(id) || (before && entry.doc._rev !== before._rev && !descends(entry.doc, String(before._rev)))) beside.add(id);
    seen.add(id);
  }
  return [...beside];
}
