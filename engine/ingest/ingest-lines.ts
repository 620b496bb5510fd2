import type { HeldReason } from './ingest-held.js';
import type { IngestResult } from './ingest.js';

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
