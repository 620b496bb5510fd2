import { bulkDocsLine, type BulkDocsLine, type ClientStack } from '../../index.js';
import type { Caller } from '../authorization/index.js';
import { quotasByStack } from '../authority/quotas.js';
import { admitPeerPushes, PeerPush } from './admission.js';

export type BulkResult = BulkDocsLine;

/**
 * What a peer pushed through `_bulk_docs` (or one `PUT`) goes through the stack's one ingest
 * path (kernel/ingest.ts): admitted by the node's authorization (./admission.ts), validated,
 * keys claimed, stored with the peer's revisions, announced. Each refused document gets its own
 * line: `bad_request` for a malformed one, `conflict` for a stale revision, else `forbidden`
 * (which PouchDB's replicator reports as `denied` and goes past).
 */
export async function acceptBulkDocs(stack: ClientStack, docs: unknown[], newEdits: boolean, caller: Caller): Promise<BulkResult[]> {
  admitPeerPushes(stack); // once per stack: the tap that authorizes what a PeerPush brings
  // hold: false — the node answers the pusher now (it sees `denied` with the code); a held
  // document would later be ingested again without the pusher's session to authorize it
  const results = await stack.ingest(docs, { origin: 'replication', newEdits, session: new PeerPush(caller), hold: false });
  // quota shares reserved for documents refused after admission are given back; usage saved
  await quotasByStack.get(stack)?.settle(results.filter((r) => !r.ok).map((r) => r.id));
  return results.map(bulkDocsLine);
}
