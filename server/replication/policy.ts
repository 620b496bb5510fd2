import type { Response } from 'express';
import type { ClientStack } from '../../index.js';
import { callerOf } from '../authorization/caller.js';
import { KeyringOwners } from '../authorization/keyring-owners.js';
import { canRead, isServerPrivateId } from '../authorization/visibility.js';

/**
 * What the replication endpoint refuses outright, before authorization looks at who asks:
 * ids no peer can ever write. `_design/` documents could carry code (views,
 * validate_doc_update); other `_` ids are CouchDB's; the engine's own `_local/~…` documents are
 * its per-peer indexes (primary keys, relation ends, class names). Who may write the rest is
 * decided by server/authorization.
 */
export { SERVER_PRIVATE_CLASSES } from '../authorization/visibility.js';

export function isPrivateId(id: string): boolean {
  return isServerPrivateId(id);
}

/** Checkpoints are `_local/<hash>`; the engine's own `_local` documents start with `~`. */
export function isReservedLocalId(localId: string): boolean {
  return localId.startsWith('~');
}

/**
 * The engine's `_local/~…` documents any peer allowed to replicate may read: what the
 * transactions plugin resolved without some members (ids and sequences only), so that peers
 * pulling from this node resolve the same transactions (docs/transactions.md).
 */
const PUBLISHED_LOCAL_IDS: ReadonlySet<string> = new Set(['~tx/incomplete']);

export function isPublishedLocalId(localId: string): boolean {
  return PUBLISHED_LOCAL_IDS.has(localId);
}

/** A refusal reason when an id is no document id at all (CouchDB's reserved `_` ids), else null. */
export function refusedId(id: unknown): string | null {
  if (typeof id !== 'string' || id === '') return 'A document needs a string _id.';
  if (id.startsWith('_design/')) return 'Design documents are not accepted: they could carry code.';
  if (id.startsWith('_local/')) return null; // checkpoints; the engine's `_local/~…` are refused by authorization
  if (id.startsWith('_')) return `"${id}" is a reserved id.`;
  return null;
}

/**
 * Which ids the caller of this request may read (server/authorization/visibility.ts). The
 * keyring owners are the stack's live record: a keyring claimed while a longpoll waits is served.
 */
export async function readableBy(stack: ClientStack, res: Response): Promise<(id: string) => boolean> {
  const caller = callerOf(res);
  const owners = await KeyringOwners.of(stack);
  const ownerOf = (id: string) => owners.ownerOf(id);
  return (id) => canRead(caller, id, ownerOf);
}
