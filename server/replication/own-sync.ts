import { getApi, type ClientStack } from '../../index.js';
import { isTravellingKeyringId, syncPlugin, SYNC_ERRORS } from '../../plugins.config.js';
import { findUser, publicUser } from '../auth/users.js';
import type { Caller } from '../authorization/index.js';
import { isServerPrivateId } from '../authorization/visibility.js';
import { quotasByStack } from '../authority/quotas.js';
import { admitPeerPushes, PeerPush } from './admission.js';

/** The remote of a node's own sync when no `pullAs` names who it is: a peer with no rights beyond data. */
const UNPRIVILEGED_REMOTE: Caller = Object.freeze({ userId: '', username: '', admin: false, tenants: Object.freeze([]) as readonly string[] });

/**
 * The node's own syncs (`stack.sync` run by a node's stack, the default one or a tenant's) obey
 * the rules of its replication endpoint, both ways:
 * - **push**: server-private documents (users and their password hashes, sessions, secrets,
 *   webhook endpoints and deliveries) never leave the node — the sync plugin's push filter asks
 *   `keepsLocal` for every change; nor do users' keyrings (each is its owner's on this node: on
 *   another server it would belong to whoever the node logs in as);
 * - **pull**: what the remote sends is a peer's push, authorized by the same `admit` tap as
 *   `_bulk_docs` (server/replication/admission.ts): `pullAs` names the local user the remote acts
 *   as (an admin may bring schema); without it the remote may bring application data only.
 *   Engine and server-private documents are refused either way (DS_AUTHZ_INTERNAL).
 * `users` is the stack holding the `~User` documents (the default stack, also for a tenant's).
 */
export function guardOwnSyncs(stack: ClientStack, users: () => ClientStack): void {
  const api = getApi(stack, syncPlugin);
  if (!api) return;
  admitPeerPushes(stack);
  api.usePolicy({
    keepsLocal: (id) => isServerPrivateId(id) || isTravellingKeyringId(id),
    pullSession: async (options) => new PeerPush(options.pullAs === undefined ? UNPRIVILEGED_REMOTE : await callerFor(users(), options.pullAs)),
    // as after a push: quota shares reserved for documents refused after admission are given back
    pulled: async (results) => {
      await quotasByStack.get(stack)?.settle(results.filter((r) => !r.ok).map((r) => r.id));
    },
  });
}

async function callerFor(users: ClientStack, username: string): Promise<Caller> {
  const found = await findUser(users, username);
  const user = found ? publicUser(found) : null;
  if (!user || user.disabled) {
    throw SYNC_ERRORS.syncOptions(`stack.sync: "pullAs" names no active user of this node ("${username}").`, { path: 'pullAs' });
  }
  return { userId: user.id, username: user.username, admin: user.role === 'admin', tenants: user.tenants };
}
