// pouchdb-adapter-http ships no types (and @types has none for v9): a PouchDB plugin.
declare module 'pouchdb-adapter-http' {
  const plugin: PouchDB.Plugin;
  export default plugin;
}
