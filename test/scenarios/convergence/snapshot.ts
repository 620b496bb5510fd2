/**
 * What one replica holds after a run, read from its storage (PouchDB's own winners and
 * `_conflicts`, not the engine's reads) plus what the engine shows: which transaction members
 * are visible, which encrypted values stay sealed, which documents are held.
 */
import { isEngineClassName, type ClientStack } from '../../../index.js';
import { isAppDocId } from './schema.js';

export interface StoredDoc {
  id: string;
  /** PouchDB's winning revision */
  rev: string;
  conflicts: string[];
  body: Record<string, unknown>;
}

/** What `stack.heldDocuments()` lists (another slice of issue #25 adds it). */
export interface HeldEntry {
  id: string;
  rev?: string;
  code?: string;
  reason?: string;
  waitingFor?: unknown;
  since?: string;
}

export interface Replica {
  name: string;
  stack: ClientStack;
  docs: Map<string, StoredDoc>;
  /** null: the stack has no `heldDocuments` API yet */
  held: HeldEntry[] | null;
  /** transaction members (documents carrying `~tx`) that `getDocument` does not show */
  hiddenTxMembers: Set<string>;
  /** active Customers whose encrypted `notes` read as `{ "~sealed": true }` (clients only) */
  sealedNotes: number;
  /** what `stack.conflicts()` lists: document id → the revisions of its winner and losers */
  listed: Map<string, Set<string>>;
  /** documents in conflict in storage that `stack.conflicts()` does not list (hidden transaction members aside) */
  unlistedConflicts: string[];
}

export async function readReplica(name: string, stack: ClientStack, options: { decrypts: boolean }): Promise<Replica> {
  const all = (await stack.storage.replication.allDocs({ include_docs: true, conflicts: true })) as { rows: Array<{ id: string; value: { rev: string }; doc?: Record<string, unknown> }> };
  const docs = new Map<string, StoredDoc>();
  for (const row of all.rows) {
    if (!isAppDocId(row.id) || !row.doc) continue;
    docs.set(row.id, { id: row.id, rev: row.value.rev, conflicts: (row.doc._conflicts as string[] | undefined) ?? [], body: row.doc });
  }
  const hiddenTxMembers = new Set<string>();
  let sealedNotes = 0;
  for (const doc of docs.values()) {
    const needsRead = doc.body['~tx'] !== undefined || (options.decrypts && doc.body['~class'] === 'Customer' && doc.body.active !== false);
    if (!needsRead) continue;
    const shown = await stack.getDocument(doc.id, { includeInactive: true });
    if (doc.body['~tx'] !== undefined && !shown) hiddenTxMembers.add(doc.id);
    const notes = shown?.notes as Record<string, unknown> | undefined;
    if (options.decrypts && notes && typeof notes === 'object' && notes['~sealed'] === true) sealedNotes++;
  }
  const heldApi = (stack as unknown as { heldDocuments?: () => Promise<HeldEntry[]> }).heldDocuments;
  const held = typeof heldApi === 'function' ? await heldApi.call(stack) : null;
  // the conflicts API, not storage, says what a user is shown: every conflict must be there
  const listed = new Map<string, Set<string>>();
  for (const c of await stack.conflicts()) listed.set(c.id, new Set([c.winner, ...c.losers].map((d) => String(d._rev))));
  // documents of the app's classes: class documents, domains and relations are the engine's (their leaves are not the user's to pick)
  const userDoc = (d: StoredDoc) => typeof d.body['~class'] === 'string' && !isEngineClassName(d.body['~class']);
  const unlistedConflicts = [...docs.values()].filter((d) => d.conflicts.length > 0 && userDoc(d) && !listed.has(d.id) && !hiddenTxMembers.has(d.id)).map((d) => d.id);
  return { name, stack, docs, held, hiddenTxMembers, sealedNotes, listed, unlistedConflicts };
}

/**
 * Every revision in a document's tree reachable from a leaf: a write that is not a leaf any more
 * but is an ancestor of one was built upon, not lost.
 */
export async function revisionTree(stack: ClientStack, id: string): Promise<{ leaves: Set<string>; all: Set<string> }> {
  const leaves = new Set<string>();
  const all = new Set<string>();
  const open = await stack.storage.replication.openRevs(id, 'all', { revs: true }).catch(() => []);
  for (const leaf of open) {
    if (!('ok' in leaf)) continue;
    leaves.add(leaf.ok._rev);
    const history = leaf.ok._revisions;
    if (!history) {
      all.add(leaf.ok._rev);
      continue;
    }
    history.ids.forEach((hash, i) => all.add(`${history.start - i}-${hash}`));
  }
  return { leaves, all };
}
