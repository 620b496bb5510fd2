import { isTravellingKeyringId, PATCH_CLASS } from '../../plugins.config.js';
import type { Caller } from './caller.js';

/**
 * Server-private classes hold the node's own secrets (password hashes, sessions, integration
 * secrets, webhook endpoints and their deliveries): never served to anyone over replication,
 * admins included (admins manage them through their routes).
 */
export const SERVER_PRIVATE_CLASSES: readonly string[] = ['~User', '~UserSession', '~Secret', '~WebhookEndpoint', '~WebhookDelivery'];

// every server-private class is a `~` class: an id that does not start with `~` is decided at once
// (the changes feed and `_bulk_get` ask this for every document they serve)
const PRIVATE_PREFIXES: readonly string[] = SERVER_PRIVATE_CLASSES.map((name) => `${name}-`);
const ALL_PRIVATE_ARE_TILDE = SERVER_PRIVATE_CLASSES.every((name) => name.startsWith('~'));

export function isServerPrivateId(id: string): boolean {
  if (ALL_PRIVATE_ARE_TILDE && id.charCodeAt(0) !== 0x7e /* ~ */) return false;
  for (let i = 0; i < SERVER_PRIVATE_CLASSES.length; i++) {
    if (id === SERVER_PRIVATE_CLASSES[i] || id.startsWith(PRIVATE_PREFIXES[i])) return true;
  }
  return false;
}

/**
 * May this caller read the document with this id over replication? Decided by id alone, so the
 * changes feed, `_all_docs`, `_bulk_get` and GET filter the same way without reading bodies:
 * - `_local/…` documents are served only by the `_local` routes (checkpoints);
 * - server-private documents never;
 * - an admin reads everything else;
 * - a user reads application documents, relations (`~rel-…`), class and domain documents — not
 *   the engine's internal documents (`~Job…`, `~JobRun…`, `~Keyring-main`, `~TriggerFailure…`,
 *   the class documents of `~` classes, `~self`) — but the versioned patches (`~Patch-…`);
 * - a keyring document (`~Keyring-<random>`) only its owner, admins included, and only where
 *   the owners are given (`keyringOwner`, the replication endpoint): nowhere else.
 */
export function canRead(caller: Caller, id: string, keyringOwner?: (id: string) => string | undefined): boolean {
  if (typeof id !== 'string' || id.startsWith('_local/') || isServerPrivateId(id)) return false;
  if (isTravellingKeyringId(id)) return keyringOwner !== undefined && caller.userId !== '' && keyringOwner(id) === caller.userId;
  if (caller.admin) return true;
  if (id.startsWith('~rel-')) return true;
  // versioned patches travel to every replica, which applies them (plugins/patches)
  if (id.startsWith(`${PATCH_CLASS}-`)) return true;
  return !id.startsWith('~');
}
