/** The fields of a PouchDB object (pouchdb-core 9) that say whether its adapter may be called directly. */
interface PouchState {
  _closed?: boolean;
  _destroyed?: boolean;
  taskqueue?: { isReady?: boolean };
  constructor: { listenerCount?(event: string): number };
}

/**
 * May the engine call this store's adapter (its `_get`, `_bulkDocs`) instead of pouchdb-core's
 * public method? Only when the public method would go straight to the adapter: the store is open,
 * ready (its setup done: pouchdb-core queues calls until then) and not logging its calls
 * (pouchdb-core's `debug` event); which adapters may be called is the caller's to say
 * (storage/direct-get.ts: by name; direct-write.ts: the stores noted at open).
 * (A PouchDB object typed `object`: storage/database.ts opens stores through storage-adapters.ts,
 * which reaches direct-write.ts, so nothing here imports database.ts, not even its types.)
 */
export function adapterCallable(db: object): boolean {
  const pouch = db as unknown as PouchState;
  return (
    pouch._closed !== true &&
    pouch._destroyed !== true &&
    pouch.taskqueue?.isReady === true &&
    (pouch.constructor.listenerCount?.('debug') ?? 0) === 0
  );
}
