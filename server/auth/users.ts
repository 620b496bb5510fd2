import { Class } from '../../kernel/model/class.js';
import type { Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';
import { hashPassword } from './passwords.js';

export const USER_CLASS = '~User';
export const SESSION_CLASS = '~UserSession';
export const ADMIN_ROLE = 'admin';

/**
 * `~User`: the username is the primary key, so a lookup by name is an index read and two
 * users cannot share a name (the engine's uniqueness check). A user has either a passwordHash
 * or, until its first login after a migration from the seed, a legacyPassword.
 */
const USER_SCHEMA: Record<string, Record<string, unknown>> = {
  username: { type: 'string', primaryKey: true, maxLength: 100, description: 'unique login name' },
  passwordHash: { type: 'string', maxLength: 512, description: 'scrypt$N$r$p$salt$hash (server/auth/passwords.ts)' },
  legacyPassword: { type: 'string', maxLength: 4096, description: 'seed credential: RSA-OAEP ciphertext, replaced by a hash on first login' },
  roles: { type: 'string', isArray: true, defaultValue: [], description: 'e.g. admin' },
};

/** A session is a document so that every instance of a node (and a restart) sees revocations. */
const SESSION_SCHEMA: Record<string, Record<string, unknown>> = {
  userId: { type: 'string', mandatory: true, description: '_id of the ~User' },
  username: { type: 'string', mandatory: true },
  createdAt: { type: 'date', format: 'date-time', mandatory: true },
  expiresAt: { type: 'date', format: 'date-time', mandatory: true },
  userAgent: { type: 'string', maxLength: 512 },
  ip: { type: 'string', maxLength: 64 },
};

export async function ensureAuthClasses(stack: ClientStack): Promise<void> {
  await Class.ensure(stack, USER_CLASS, 'Users of the server node (server/auth)', USER_SCHEMA);
  await Class.ensure(stack, SESSION_CLASS, 'Login sessions; revoked sessions are inactive (server/auth)', SESSION_SCHEMA);
}

/** Is there any ~User document at all (inactive ones included)? A key-range read, not a scan. */
export async function hasAnyUser(stack: ClientStack): Promise<boolean> {
  const rows = await stack.db.allDocs({ startkey: `${USER_CLASS}-`, endkey: `${USER_CLASS}-\uffff`, limit: 1 });
  return rows.rows.length > 0;
}

export async function findUser(stack: ClientStack, username: string): Promise<Doc | null> {
  const users = await stack.getClass(USER_CLASS);
  return users.getByPrimaryKeys({ username });
}

export async function createUser(stack: ClientStack, username: string, password: string, roles: string[] = []): Promise<Doc> {
  const passwordHash = await hashPassword(password);
  return stack.createDoc({ '~class': USER_CLASS, username, passwordHash, roles }, { origin: 'system' });
}

/** What the API may show of a user: never the hash nor the legacy credential. */
export function publicUser(user: Doc): { id: string; username: string; roles: string[] } {
  return { id: user._id, username: String(user.username), roles: rolesOf(user) };
}

export function rolesOf(user: Doc): string[] {
  return Array.isArray(user.roles) ? user.roles.filter((r): r is string => typeof r === 'string') : [];
}

/**
 * First boot only (no ~User document yet): the admin from ADMIN_USERNAME / ADMIN_PASSWORD.
 * Later boots ignore them, so a leaked .env cannot reset the admin's password.
 */
export async function ensureInitialAdmin(stack: ClientStack, username: string | null, password: string | null, log: (line: string) => void): Promise<boolean> {
  if (await hasAnyUser(stack)) return false;
  if (!username || !password) {
    log('auth: no user exists and ADMIN_USERNAME/ADMIN_PASSWORD are not set: nobody can log in');
    return false;
  }
  await createUser(stack, username, password, [ADMIN_ROLE]);
  log(`auth: created the initial admin user "${username}"`);
  return true;
}
