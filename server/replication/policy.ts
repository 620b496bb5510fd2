/**
 * What the replication endpoint serves and what it refuses outright, before validation.
 *
 * Server-private classes hold the node's own secrets (password hashes, sessions): they are
 * never served to a peer and a peer can never write them. The engine's `_local/~…` documents
 * are its per-peer indexes (primary keys, relation ends, class names): a peer must not
 * overwrite them. `_design/` documents could carry code (views, validate_doc_update): refused.
 */
export const SERVER_PRIVATE_CLASSES: readonly string[] = ['~User', '~UserSession'];

/** Meta-classes whose class document only the engine itself writes. */
const META_CLASS_IDS = new Set(['class', 'domain', '~self']);

export function isPrivateId(id: string): boolean {
  return SERVER_PRIVATE_CLASSES.some((name) => id === name || id.startsWith(`${name}-`));
}

/** Checkpoints are `_local/<hash>`; the engine's own `_local` documents start with `~`. */
export function isReservedLocalId(localId: string): boolean {
  return localId.startsWith('~');
}

/** A refusal reason when a document id can never be written by a peer, else null. */
export function refusedId(id: unknown): string | null {
  if (typeof id !== 'string' || id === '') return 'A document needs a string _id.';
  if (id.startsWith('_design/')) return 'Design documents are not accepted: they could carry code.';
  if (id.startsWith('_local/')) return isReservedLocalId(id.slice(7)) ? 'This _local document belongs to the engine.' : null;
  if (id.startsWith('_')) return `"${id}" is a reserved id.`;
  if (isPrivateId(id)) return 'Documents of server-private classes cannot be replicated.';
  if (META_CLASS_IDS.has(id)) return 'Meta-class documents are written by the engine only.';
  return null;
}
