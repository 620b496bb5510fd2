// The PouchDB types the package's own .d.ts names (the store, the replication port's answers),
// declared here as empty interfaces: an app compiles docstack's .d.ts without @types/pouchdb-core
// (a devDependency: its global Buffer clashes with @types/node, which only skipLibCheck hides).
// Interfaces merge, so with @types/pouchdb-core (as in this repository) they are its full types;
// the type parameters must match its declarations for that, and this compile checks it. The
// files that name PouchDB.* import this one for its effect on types (their .d.ts keep the import).
declare global {
  namespace PouchDB {
    namespace Core {
      interface Response {}
      interface RevisionDiffResponse {}
      interface AllDocsResponse<Content extends {}> {}
      interface AllDocsWithKeysResponse<Content extends {}> {}
      interface BulkGetResponse<Content extends {}> {}
      interface ChangesResponse<Content extends {}> {}
      interface Changes<Content extends {}> {}
    }
    interface Database<Content extends {} = {}> {}
  }
}

export {};
