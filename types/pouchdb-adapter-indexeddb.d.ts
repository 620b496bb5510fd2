// pouchdb-adapter-indexeddb ships no types: a PouchDB plugin adding the "indexeddb" adapter.
declare module 'pouchdb-adapter-indexeddb' {
  const plugin: PouchDB.Plugin;
  export default plugin;
}
