import { type ClientStack } from '../../index.js';
import { bulkDocsLine, type BulkDocsLine } from '../../kit/index.js';
import type { Caller } from '../authorization/index.js';
import { quotasByStack } from '../authority/quotas.js';
import { admitPeerPushes, PeerPush } from './admission.js';

export type BulkResult = BulkDocsLine;

/**
 * What a peer pushed through `_bulk_docs` (or one `PUT`) goes through the stack's one ingest
 * path (engine/ingest/ingest.ts): admitted by the node's authorization (./admission.ts), validated,
 * keys claimed, stored with the peer's revisions, announced. Each refused document gets its own
 * line: `bad_request` for a malformed one, `conflict` for a stale revision, else `forbidden`
 * (which PouchDB's replicator reports as `denied` and goes past).
 */
export async function acceptBulkDocs(stack: ClientStack, docs: unknown[], newEdits: boolean, caller: Caller): Promise<BulkResult[]> {
  admitPeerPushes(stack); // once per stack: the tap that authorizes what a PeerPush brings
  // authorization runs first (the admit taps); a document then waiting for something not here
  // yet (its class, a foreign key's target, a domain, a relation end) is held and answered
  // `ok`: retried later without the pusher's session, admitted already (./admission.ts)
  const results = await stack.ingest(docs, { origin: 'replication', newEdits, session: new PeerPush(caller) });
  // quota shares reserved for documents refused after admission are given back; usage saved
  await quotasByStack.get(stack)?.settle(results.filter((r) => !r.ok).map((r) => r.id));
  return results.map(bulkDocsLine);
}
