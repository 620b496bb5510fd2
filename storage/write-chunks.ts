/**
 * How many documents one bulkDocs call of a large write carries, by adapter (AdapterLoader.writeChunk;
 * kernel/unit-of-work.ts splits a write into calls of this size).
 */

/**
 * leveldb-core (leveldb, memory) copies a call's whole pending batch on every operation it adds
 * (LevelTransaction.batch), so a call costs more than linearly in its operations; with a key
 * entry per document, 250 documents a call measured ≈ 20 % less CPU than 1,000 (memory adapter).
 * Also the size of the calls concurrent small writes share (kernel/commit-group.ts).
 */
export const STORAGE_WRITE_CHUNK = 250;

/**
 * pouchdb-adapter-indexeddb writes a call in one IndexedDB transaction at a cost linear in its
 * documents, and fewer, larger transactions cost less: a bulk insert of 10,000 in one call took
 * 0.89× the time of 40 calls of 250 under the engine in Chromium (5,000 a call 0.90×, 1,000 0.98×;
 * docs/benchmarks.md#benchbrowser).
 */
export const INDEXEDDB_WRITE_CHUNK = 10_000;
