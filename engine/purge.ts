import type { Doc } from '../contracts/model.js';
import type { Database } from '../storage/database.js';
import { editOutsideIds, inClassRange } from '../storage/class-ids.js';
import type { Storage } from '../storage/facade.js';
import type { WriteLock } from '../storage/write-lock.js';
import type { ClassCache } from './class-cache.js';
import { addDelta, counts, type ClassCounts } from './indexes/class-counts.js';
import { claimFor, type KeyClaim, type PrimaryKeyIndex } from './indexes/primary-keys.js';

/** What purging shares with the other storing paths: the store, its key index, its counters, its write lock. */
export interface StoreDeps {
  db: Database;
  primaryKeys: PrimaryKeyIndex;
  counts: ClassCounts;
  lock: WriteLock;
}

/** Documents read and purged per storage call. */
const PURGE_CHUNK = 500;

/**
 * Removes documents from storage for good (tombstones, not `active: false`) with their
 * primary-key entries and class counters, in the same bulkDocs per chunk: stack.purgeDocuments.
 */
export async function purgeDocuments(storage: Storage, classCache: ClassCache, store: StoreDeps, ids: string[]): Promise<number> {
  let purged = 0;
  for (let start = 0; start < ids.length; start += PURGE_CHUNK) {
    const docs = (await storage.getMany(ids.slice(start, start + PURGE_CHUNK))).filter((d): d is Doc => !!d);
    const releases: { index: number; claim: KeyClaim }[] = [];
    for (const [index, doc] of docs.entries()) {
      const model = await classCache.get(doc['~class']);
      const claim = model ? claimFor(model, doc) : null;
      if (claim) releases.push({ index, claim });
    }
    purged += await storePurge(store, docs, releases);
  }
  return purged;
}

/**
 * Purges documents for good (tombstones) in one bulkDocs call with their key entries and class
 * counters. A document changed since it was read is not purged (it keeps its key and count);
 * the others are. Returns how many were purged.
 */
async function storePurge(deps: StoreDeps, docs: Doc[], releases: { index: number; claim: KeyClaim }[]): Promise<number> {
  if (docs.length === 0) return 0;
  return deps.lock(async () => {
    const keys = await deps.primaryKeys.prepare([], releases);
    const deltas = new Map<string, number>();
    for (const doc of docs) addDelta(deltas, doc['~class'], counts(doc), false);
    const counters = await deps.counts.entries(deltas);
    const locals = [...keys.writes.map((w) => ({ ...w.entry })), ...counters.map((c) => ({ ...c }))];
    // a tombstone of an id outside its class's range names its class: the id does not tell it (a class-scoped sync's filters)
    const tombstone = (d: Doc) => ({ _id: d._id, _rev: d._rev, _deleted: true, ...(typeof d['~class'] === 'string' && !inClassRange(d['~class'], d._id) ? { '~class': d['~class'] } : {}) });
    const results = await deps.db.bulkDocs([...locals, ...docs.map(tombstone)] as never[]);
    deps.counts.written(deltas, counters, counters.map((_, i) => {
      const r = results[keys.writes.length + i];
      return 'error' in r && r.error ? null : (r as PouchDB.Core.Response).rev;
    }));
    const kept = new Map<string, number>();
    const restores: object[] = [];
    let purged = 0;
    const unlisted = new Map<string, string[]>();
    docs.forEach((doc, i) => {
      const r = results[locals.length + i];
      if (!('error' in r && r.error)) {
        const className = doc['~class'];
        if (typeof className === 'string' && !inClassRange(className, doc._id)) unlisted.set(className, [...(unlisted.get(className) ?? []), doc._id]);
        return void purged++;
      }
      addDelta(kept, doc['~class'], false, counts(doc));
      for (const w of keys.writes) if (w.index === i && w.restore) restores.push({ ...w.restore });
    });
    if (restores.length > 0) await deps.db.bulkDocs(restores as never[]);
    await deps.primaryKeys.released(keys.writes.filter((w, i) => !('error' in results[i] && results[i].error) && !restores.some((r) => (r as { _id: string })._id === w.entry._id)));
    await deps.counts.apply(kept); // the documents not purged count again; a counter whose write failed is persisted
    // a purged id is taken off its class's list (one left by a crash here is skipped by the readers)
    await editOutsideIds(deps.db, unlisted, false);

    return purged;
  });
}
