import { type ClientStack } from '../../index.js';
import { isTravellingKeyringId, PATCH_CLASS } from '../../plugins.config.js';
import type { Caller } from '../authorization/index.js';
import { isServerPrivateId } from '../authorization/visibility.js';

/** How long a count of the engine's documents serves info requests while writes go on (ms). */
const FRESH_MS = 5000;

interface TildeCounts {
  updateSeq: number | string;
  at: number;
  /** every `~…` document */
  all: number;
  /** those any user reads: relations and versioned patches */
  forUsers: number;
  /** those an admin reads: all but the server-private ones and the keyrings (their owner's only) */
  forAdmins: number;
}

const cache = new WeakMap<ClientStack, Promise<TildeCounts>>();

/**
 * `doc_count` of the database info as the caller sees it (server/authorization/visibility.ts):
 * every application document, minus the engine's `~…` documents the caller cannot read. Only the
 * `~` range is scanned (ids only), and its counts are kept per stack until the store changes and
 * at most 5 s, so info requests cost no scan each. A user's own keyrings are not counted (the
 * figure is for display: PouchDB's replicator does not rely on it).
 */
export async function visibleDocCount(stack: ClientStack, caller: Caller, docCount: number, updateSeq: number | string): Promise<number> {
  const counts = await tildeCounts(stack, updateSeq);
  return Math.max(0, docCount - counts.all + (caller.admin ? counts.forAdmins : counts.forUsers));
}

async function tildeCounts(stack: ClientStack, updateSeq: number | string): Promise<TildeCounts> {
  const now = Date.now();
  const known = cache.get(stack);
  if (known) {
    const counts = await known.catch(() => null);
    if (counts && (counts.updateSeq === updateSeq || now - counts.at < FRESH_MS)) return counts;
  }
  const counting = scan(stack, updateSeq, now);
  cache.set(stack, counting);
  counting.catch(() => cache.delete(stack));
  return counting;
}

async function scan(stack: ClientStack, updateSeq: number | string, at: number): Promise<TildeCounts> {
  const { rows } = (await stack.storage.replication.allDocs({ startkey: '~', endkey: '~\uffff' })) as { rows: { id: string }[] };
  const counts: TildeCounts = { updateSeq, at, all: 0, forUsers: 0, forAdmins: 0 };
  for (const { id } of rows) {
    counts.all += 1;
    if (isServerPrivateId(id) || isTravellingKeyringId(id)) continue;
    counts.forAdmins += 1;
    if (id.startsWith('~rel-') || id.startsWith(`${PATCH_CLASS}-`)) counts.forUsers += 1;
  }
  return counts;
}
