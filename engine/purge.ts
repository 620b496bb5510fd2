import type { ClassCache } from './class-cache.js';
import { claimFor, type KeyClaim } from './indexes/primary-keys.js';
import type { Doc } from '../contracts/model.js';
import { storePurge, type StoreDeps } from '../kernel/pipeline-store.js';
import type { Storage } from '../storage/facade.js';

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
