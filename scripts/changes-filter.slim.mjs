/**
 * The slim bundle's stand-in for pouchdb-changes-filter (scripts/build-browser.mjs): the slim
 * preset replicates nothing and reads the changes feed without filters (doc_ids, selector, filter,
 * view), so PouchDB runs without the plugin, as it is made to (such options would be ignored with
 * PouchDB's own warning; no docstack call passes one there).
 */
export default function changesFilterLeftOut() {}
