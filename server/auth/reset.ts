import type { ClientStack, Doc } from '../../index.js';
import { USER_CLASS } from './users.js';

/** Fields of a stored user that a new document may not carry (the engine sets them). */
const ENGINE_FIELDS = new Set(['_rev', '~class', '~createTimestamp', '~updateTimestamp', 'active']);

/** The active users of a stack as they are stored (hashes included: they are copied, never shown). */
export async function snapshotUsers(stack: ClientStack): Promise<Doc[]> {
  if (!(await stack.classCache.get(USER_CLASS))) return [];
  return stack.findDocuments(USER_CLASS);
}

/**
 * Writes the users back into a re-initialised stack, with their ids (so tokens' `sub` still
 * names them). Sessions are not restored: a reset signs everybody out. A user whose name was
 * taken meanwhile (the first-boot admin of the new database) is skipped.
 */
export async function restoreUsers(stack: ClientStack, users: Doc[]): Promise<void> {
  const cls = await stack.getClass(USER_CLASS);
  for (const user of users) {
    if (await stack.getDocument(user._id, { includeInactive: true })) continue;
    if (await cls.getByPrimaryKeys({ username: user.username })) continue;
    const fields = Object.fromEntries(Object.entries(user).filter(([k]) => !ENGINE_FIELDS.has(k)));
    await stack.createDoc({ ...fields, '~class': USER_CLASS }, { origin: 'system' });
  }
}
