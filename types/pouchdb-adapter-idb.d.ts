// pouchdb-adapter-idb ships no types: a PouchDB plugin adding the "idb" (IndexedDB) adapter.
declare module 'pouchdb-adapter-idb' {
  const plugin: PouchDB.Plugin;
  export default plugin;
}
