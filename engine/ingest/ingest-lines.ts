import { DocstackError } from '../../contracts/errors.js';
import { answersOf, refusedDependents, type HeldReason } from './ingest-held.js';
import type { Entry, IngestResult } from './ingest-store.js';

/** One line of a CouchDB `_bulk_docs` answer, plus the engine's code when a document was refused. */
export interface BulkDocsLine {
  id: string;
  ok?: true;
  rev?: string;
  /** kept aside here until what it waits for arrives (engine/ingest/ingest-held.ts); `ok` all the same */
  held?: HeldReason;
  /** CouchDB's error word: `bad_request` (malformed), `conflict` (stale revision), else `forbidden` */
  error?: 'bad_request' | 'conflict' | 'forbidden';
  reason?: string;
  code?: string;
  status?: number;
}

/**
 * The one mapping from an ingest result to the protocol's line, shared by the node's endpoint
 * and the sync plugin's pull target so both sides name a refusal the same way.
 */
export function bulkDocsLine(result: IngestResult): BulkDocsLine {
  if (result.ok) return { id: result.id, ok: true, rev: result.rev, ...(result.held ? { held: result.held } : {}) };
  const error = result.code === 'DS_REQUEST_INVALID' ? 'bad_request' : result.code === 'DS_DOC_CONFLICT' ? 'conflict' : 'forbidden';
  return { id: result.id, error, reason: result.reason, code: result.code, status: result.status };
}

/** The names (ids, a domain's `domain-<name>`) of the documents refused so far, with their codes. */
export function refusedNames(entries: Entry[], results: (IngestResult | undefined)[]): Map<string, string> {
  const refused = new Map<string, string>();
  for (const e of entries) {
    const line = results[e.index];
    if (line && !line.ok) for (const name of answersOf(e.doc)) refused.set(name, line.code);
  }
  return refused;
}

/**
 * A document about to be held that waits for one the `admit` taps refused in this batch (the
 * sender may not write it at all: authorization, shape, quota) would wait for what will not
 * come: refused with DS_DEPENDENCY_REFUSED instead. One refused later, by validation, stays a
 * reason to hold: the sender may follow with an acceptable revision of it.
 */
export function refuseWaitingForRefused(notAdmitted: Map<string, string>, written: Entry[], holding: { entry: Entry; reason: HeldReason }[], refuse: (e: Entry, err: unknown) => void): void {
  if (holding.length === 0 || notAdmitted.size === 0) return;
  // another revision of the same document stored by this batch: nothing waits for it
  for (const e of written) for (const name of answersOf(e.doc)) notAdmitted.delete(name);
  for (const [h, err] of refusedDependents(holding.map((h) => ({ ...h, doc: h.entry.doc })), notAdmitted)) refuse(h.entry, err);
}

/** The id a refusal line names: the document's own, or '' for what is not a document. */
export function idOf(doc: unknown): string {
  const id = (doc as { _id?: unknown } | null)?._id;
  return typeof id === 'string' ? id : '';
}

/** A refusal line: a DocstackError's own code, anything else a malformed document. */
export function refusal(id: string, err: unknown): IngestResult {
  if (err instanceof DocstackError) return { id, ok: false, code: err.code, reason: err.message, status: err.status };
  return { id, ok: false, code: 'DS_DOC_INVALID', reason: err instanceof Error ? err.message : String(err), status: 400 };
}
