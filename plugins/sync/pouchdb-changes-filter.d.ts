// pouchdb-changes-filter ships no types: a PouchDB plugin (filter functions, doc_ids, selectors in changes).
declare module 'pouchdb-changes-filter' {
  const plugin: PouchDB.Plugin;
  export default plugin;
}
