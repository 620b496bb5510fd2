import { readFile } from 'node:fs/promises';

/**
 * pouchdb-adapter-indexeddb (9.0.0), as the browser bundles carry it, with three fixes no public
 * hook reaches (docs/browser.md#storage-indexeddb):
 * - each write transaction reads the update sequence and document count as stored before it
 *   numbers its documents: the adapter keeps both per connection, so two tabs writing one after
 *   the other gave two documents the same sequence and the second transaction aborted. IndexedDB
 *   runs readwrite transactions over one store one at a time across tabs, so the read is exact,
 *   and it is asked together with the documents' own reads (answered first: requests complete
 *   in order), so it costs no round trip of its own;
 * - an aborted write transaction answers with the transaction's own error name (a full quota is a
 *   `QuotaExceededError`, which storage/database.ts turns into DS_STORAGE_QUOTA) instead of a bare
 *   "transaction was aborted";
 * - a `_local` document is written as the other adapters' `_putLocal` writes it, whatever the
 *   call's `new_edits`: its revision must be the stored one (none for a new one) or the write is a
 *   409 naming its id, and it gets the next "0-N" revision. The adapter has no `_putLocal` and ran
 *   `_local` documents through the replicated-revision path, so an ingest (`new_edits: false`) that
 *   stores a document with its key entries and class counters in one transaction was refused whole
 *   for a first counter without `_rev` (`400 Invalid rev format`), a key entry taken meanwhile was
 *   not a conflict, and the engine could not know a counter's next revision.
 * A patch whose text is not found fails the build: an adapter update must be looked at again.
 */
const PATCHES = [
  [
    `      // We would like to use promises here, but idb sucks
      fetchExistingDocs(txn, docs);`,
    `      // issued before the documents' reads, so answered before them (a transaction's requests
      // complete in the order they were made): no round trip of its own
      txn.objectStore(META_LOCAL_STORE).get(META_LOCAL_STORE).onsuccess = function (e) {
        const stored = e.target.result;
        if (stored) {
          metadata.seq = stored.seq;
          metadata.doc_count = stored.doc_count;
        }
      };
      fetchExistingDocs(txn, docs);`,
  ],
  [
    `callback(error || createError(UNKNOWN_ERROR, 'transaction was aborted'));`,
    `callback(error || createError(UNKNOWN_ERROR, (txn.error && txn.error.name) || 'transaction was aborted'));`,
  ],
  [
    `      result = parseDoc(req.docs[i], opts.new_edits, dbOpts);`,
    `      if (isLocalId(req.docs[i]._id)) {
        docs.push(docstackLocalDoc(req.docs[i]));
        continue;
      }
      result = parseDoc(req.docs[i], opts.new_edits, dbOpts);`,
  ],
  [
    `      // The first write of a document cannot specify a revision
      } else if (opts.new_edits &&`,
    `      } else if (doc.docstackLocal) {
        newDoc = docstackLocalWrite(doc, oldDocs[doc.id]);

      // The first write of a document cannot specify a revision
      } else if (opts.new_edits &&`,
  ],
];

/** Appended to the adapter's module: a `_local` write as `_putLocal` makes it (see above). */
const LOCAL_WRITES = `
function docstackLocalDoc(given) {
  const data = {};
  for (const key in given) if (key !== '_id' && key !== '_rev' && key !== '_deleted' && key !== '_revisions') data[key] = given[key];
  const deleted = given._deleted === true;
  return { docstackLocal: true, id: given._id, given: given._rev, deleted, rev: '0-0', revs: { '0-0': { data, deleted } } };
}
function docstackLocalWrite(doc, old) {
  const failed = (error) => Object.assign(error, { id: doc.id });
  if (doc.deleted && !old) return failed(createError(MISSING_DOC, 'deleted'));
  if ((old ? old.rev : undefined) !== doc.given) return failed(createError(REV_CONFLICT));
  const n = /^0-[0-9]+$/.test(doc.given || '') ? Number(doc.given.slice(2)) + 1 : 1;
  const rev = '0-' + n;
  return { id: doc.id, rev, rev_tree: [{ pos: 0, ids: [String(n), { status: 'available' }, []] }], revs: { [rev]: doc.revs['0-0'] } };
}
`;

export const patchedIndexeddbAdapter = {
  name: 'docstack-patched-indexeddb-adapter',
  setup(build) {
    build.onLoad({ filter: /[\\/]pouchdb-adapter-indexeddb[\\/]lib[\\/]index\.es\.js$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      for (const [from, to] of PATCHES) {
        if (!contents.includes(from)) throw new Error(`pouchdb-adapter-indexeddb: the text to patch was not found (${from.trim().split('\n')[0]}); see scripts/patch-indexeddb-adapter.mjs`);
        contents = contents.replace(from, to);
      }
      return { contents: contents + LOCAL_WRITES, loader: 'js' };
    });
  },
};
