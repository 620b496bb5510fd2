/**
 * pouchdb-adapter-indexeddb and pouchdb-adapter-idb keep a store under the same IndexedDB name
 * (`_pouch_<name>`) in different layouts, told apart by the database's version: the first opens
 * with 2·10^13 + the time, the second with 5. pouchdb-adapter-indexeddb refuses the other layout by
 * throwing inside its upgrade handler (an uncaught error in the page, then a bare failure), so the
 * layout is read first, from `indexedDB.databases()` (where the browser has it), and a store
 * written by pouchdb-adapter-idb — docstack 0.1's default — is refused with what to do.
 */
const VERSION_MULTIPLIER = 10 ** 13;

/** Was `_pouch_<location>` written by pouchdb-adapter-idb? false when it is not there or cannot be told. */
export async function writtenByIdbAdapter(location: string): Promise<boolean> {
  const factory = (globalThis as { indexedDB?: { databases?: () => Promise<Array<{ name?: string; version?: number }>> } }).indexedDB;
  if (typeof factory?.databases !== 'function') return false;
  try {
    const found = (await factory.databases()).find((db) => db.name === `_pouch_${location}`);
    return found?.version !== undefined && found.version > 0 && found.version < VERSION_MULTIPLIER;
  } catch {
    return false;
  }
}
