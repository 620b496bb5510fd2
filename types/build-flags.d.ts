/**
 * Build flags. `docstackBrowserBuild` is defined `true` in the browser files
 * (scripts/build-browser.mjs), where the minifier then leaves out the paths it guards: Node's
 * speed-ups of issue 29 that the browser files' size budgets have no room for (the chained
 * write in kernel/pipeline.ts and kernel/unit-of-work.ts, the one-attribute key's shortcuts in
 * kernel/drafts.ts naturalIdOf and engine/indexes/primary-keys.ts claimFor, the natural id's
 * escape by a scan of character codes, createDraft's look for protected fields only when a
 * key could be one and its attributes copied one by one instead of spread, all in kernel/drafts.ts). Each guarded path
 * answers exactly what the path it shortcuts does (tests run in Node, where it is never set).
 * One guard is not a speed-up: storage/replication.ts reads changes for replication inside the
 * store's write lock in Node only (storage/changes-in-lock.ts), because leveldb-core can skip a
 * row a write supersedes mid-read; the IndexedDB adapters read a page in one transaction.
 */
declare global {
  // eslint-disable-next-line no-var
  var docstackBrowserBuild: true | undefined;
}

export {};
