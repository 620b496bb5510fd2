import { createHash } from 'node:crypto';
import { Attribute, Class, type ClientStack, type Doc } from '../../index.js';
import { hashPassword } from './passwords.js';

export const USER_CLASS = '~User';
export const SESSION_CLASS = '~UserSession';
export const ADMIN_ROLE = 'admin';
export const USER_ROLE = 'user';
export type Role = typeof ADMIN_ROLE | typeof USER_ROLE;
export const ROLES: readonly Role[] = [ADMIN_ROLE, USER_ROLE];

/**
 * `~User`: the username is the primary key, so a lookup by name is an index read and two
 * users cannot share a name (the engine's uniqueness check). A user has either a passwordHash
 * or, until its first login after a migration from the seed, a legacyPassword.
 */
const USER_SCHEMA: Record<string, Record<string, unknown>> = {
  username: { type: 'string', primaryKey: true, maxLength: 100, description: 'unique login name' },
  passwordHash: { type: 'string', maxLength: 512, description: 'scrypt$N$r$p$salt$hash (server/auth/passwords.ts)' },
  legacyPassword: { type: 'string', maxLength: 4096, description: 'seed credential: RSA-OAEP ciphertext, replaced by a hash on first login' },
  roles: { type: 'string', isArray: true, defaultValue: [], description: 'legacy: read once to migrate to role' },
};

/** Added to the ~User class of stores made before roles existed (ensureAuthClasses). */
const LATER_ATTRIBUTES: Record<string, Record<string, unknown>> = {
  role: { type: 'enum', values: [{ value: ADMIN_ROLE }, { value: USER_ROLE }], defaultValue: USER_ROLE, mandatory: true, description: 'admin or user (docs/server-auth.md)' },
  disabled: { type: 'boolean', defaultValue: false, description: 'a disabled user cannot log in; their sessions ended when disabled' },
  tenants: { type: 'string', isArray: true, defaultValue: [], description: 'the tenants (/db/<tenant>) the user reaches (server/tenants)' },
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

/** Added to the ~UserSession class of stores made before sessions named their credential. */
const LATER_SESSION_ATTRIBUTES: Record<string, Record<string, unknown>> = {
  credential: { type: 'string', maxLength: 64, description: 'credentialOf(user) at login: a session ends when the password changes (session-cache.ts)' },
};

/** Adds the attributes a class made by an earlier version lacks; true when it added any. */
async function addMissing(cls: Class, attributes: Record<string, Record<string, unknown>>): Promise<boolean> {
  let added = false;
  for (const [name, model] of Object.entries(attributes)) {
    if (cls.model.schema[name]) continue;
    const { type, description, ...config } = model;
    await Attribute.create(cls, name, type as string, description as string, config);
    added = true;
  }
  return added;
}

export async function ensureAuthClasses(stack: ClientStack): Promise<void> {
  const users = await Class.ensure(stack, USER_CLASS, 'Users of the server node (server/auth)', { ...USER_SCHEMA, ...LATER_ATTRIBUTES });
  const sessions = await Class.ensure(stack, SESSION_CLASS, 'Login sessions; revoked sessions are inactive (server/auth)', { ...SESSION_SCHEMA, ...LATER_SESSION_ATTRIBUTES });
  await addMissing(sessions, LATER_SESSION_ATTRIBUTES);
  // a store from before roles: add the attributes (stamping their defaults), then make the
  // users whose legacy `roles` held "admin" admins
  if (await addMissing(users, LATER_ATTRIBUTES)) {
    for (const user of await stack.findDocuments(USER_CLASS, {}, { includeInactive: true })) {
      if (rolesOf(user).includes(ADMIN_ROLE) && user.role !== ADMIN_ROLE) await stack.updateDoc(user._id, { role: ADMIN_ROLE }, { origin: 'system' });
    }
  }
}

/** Is there any ~User document at all (inactive ones included)? A key-range read, not a scan. */
export async function hasAnyUser(stack: ClientStack): Promise<boolean> {
  return (await stack.storage.range({ prefix: `${USER_CLASS}-`, limit: 1 })).length > 0;
}

export async function findUser(stack: ClientStack, username: string): Promise<Doc | null> {
  const users = await stack.getClass(USER_CLASS);
  return users.getByPrimaryKeys({ username });
}

export async function createUser(stack: ClientStack, username: string, password: string, role: Role = USER_ROLE, tenants: readonly string[] = []): Promise<Doc> {
  const passwordHash = await hashPassword(password);
  return stack.createDoc({ '~class': USER_CLASS, username, passwordHash, role, tenants: [...tenants] }, { origin: 'system' });
}

/**
 * What a session is bound to: a digest of the user's stored credential (the scrypt hash string,
 * else the legacy one). A session whose `credential` differs from its user's — the password was
 * changed by any path: a route, the CLI, a direct write — is refused. The digest of a salted,
 * slow hash tells nothing about the password.
 */
export function credentialOf(user: Doc): string {
  const stored = typeof user.passwordHash === 'string' ? user.passwordHash : typeof user.legacyPassword === 'string' ? user.legacyPassword : '';
  return createHash('sha256').update(stored).digest('base64url').slice(0, 22);
}

export interface PublicUser {
  id: string;
  username: string;
  role: Role;
  disabled: boolean;
  tenants: string[];
}

/** What the API may show of a user: never the hash nor the legacy credential. */
export function publicUser(user: Doc): PublicUser {
  return { id: user._id, username: String(user.username), role: roleOf(user), disabled: user.disabled === true, tenants: tenantsOf(user) };
}

/** The role of a user document: `role`, or (a store not yet migrated) admin when `roles` says so. */
export function roleOf(user: Doc): Role {
  if (user.role === ADMIN_ROLE || user.role === USER_ROLE) return user.role;
  return rolesOf(user).includes(ADMIN_ROLE) ? ADMIN_ROLE : USER_ROLE;
}

/** The tenants a user document names (none for a user made before tenants existed). */
export function tenantsOf(user: Doc): string[] {
  return Array.isArray(user.tenants) ? user.tenants.filter((t): t is string => typeof t === 'string') : [];
}

export function rolesOf(user: Doc): string[] {
  return Array.isArray(user.roles) ? user.roles.filter((r): r is string => typeof r === 'string') : [];
}

/**
 * First boot only (no ~User document yet): the admin from ADMIN_USERNAME / ADMIN_PASSWORD.
 * Later boots ignore them, so a leaked .env cannot reset the admin's password.
 */
export async function ensureInitialAdmin(stack: ClientStack, username: string | null, password: string | null, log: (line: string) => void, givenByOperator = true): Promise<boolean> {
  if (await hasAnyUser(stack)) {
    if (password && givenByOperator) {
      // never the password itself: only that it was set and is not used
      log('auth: ADMIN_PASSWORD is set but ignored: users exist already (it is read on the first boot only). To reset a lost password run: npm run user -- reset-password <name>');
    }
    return false;
  }
  if (!username || !password) {
    log('auth: no user exists and ADMIN_USERNAME/ADMIN_PASSWORD are not set: nobody can log in');
    return false;
  }
  await createUser(stack, username, password, ADMIN_ROLE);
  log(`auth: created the initial admin user ${JSON.stringify(username)}`);
  return true;
}
