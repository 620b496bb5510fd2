// pouchdb-merge ships no types; this is the one function docstack uses (storage/document-cache.ts).
declare module 'pouchdb-merge' {
  /** The winning revision (`<pos>-<hash>`) of a document's revision tree, as PouchDB's reads choose it. */
  export function winningRev(metadata: { rev_tree: unknown }): string;
}
