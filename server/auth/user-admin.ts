import { type Doc, isPlainObject } from '../../index.js';
import type { NodeContext } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { AuthService } from './service.js';
import { requireTenantList } from '../tenants/names.js';
import { createUser, findUser, publicUser, ROLES, USER_CLASS, USER_ROLE, type PublicUser, type Role } from './users.js';

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/;
export const MIN_PASSWORD = 8;

function requireBody(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw SERVER_ERRORS.requestInvalid('The body must be a JSON object.');
  return body;
}

function requirePassword(value: unknown, path = 'password'): string {
  if (typeof value !== 'string' || value.length < MIN_PASSWORD || value.length > 1024) {
    throw SERVER_ERRORS.requestInvalid(`"${path}" must be a string of ${MIN_PASSWORD} to 1024 characters.`, { path });
  }
  return value;
}

function requireRole(value: unknown): Role {
  if (!ROLES.includes(value as Role)) throw SERVER_ERRORS.requestInvalid(`"role" must be one of ${ROLES.join(', ')}.`, { path: 'role' });
  return value as Role;
}

/**
 * User management behind the admin routes (server/auth/user-routes.ts) and the CLI
 * (scripts/user.ts): every change goes through the engine with origin `system`; what leaves is
 * a PublicUser, never a hash.
 */
export class UserAdmin {
  constructor(
    private readonly ctx: Pick<NodeContext, 'stack' | 'log'>,
    private readonly service?: AuthService,
  ) {}

  async list(): Promise<PublicUser[]> {
    const users = await this.ctx.stack().findDocuments(USER_CLASS);
    return users.map(publicUser).sort((a, b) => a.username.localeCompare(b.username));
  }

  async require(username: string): Promise<Doc> {
    const user = typeof username === 'string' && username !== '' ? await findUser(this.ctx.stack(), username) : null;
    if (!user) throw SERVER_ERRORS.userNotFound(`There is no user ${JSON.stringify(username)}.`, { path: 'username' });
    return user;
  }

  async publicOf(username: string): Promise<PublicUser> {
    return publicUser(await this.require(username));
  }

  async create(input: unknown): Promise<PublicUser> {
    const body = requireBody(input);
    if (typeof body.username !== 'string' || !USERNAME.test(body.username)) {
      throw SERVER_ERRORS.requestInvalid('"username" must be 1 to 100 letters, digits, "_", ".", "@" or "-", starting with a letter or digit.', { path: 'username' });
    }
    const password = requirePassword(body.password);
    const role = body.role === undefined ? USER_ROLE : requireRole(body.role);
    const tenants = body.tenants === undefined ? [] : requireTenantList(body.tenants);
    const user = await createUser(this.ctx.stack(), body.username, password, role, tenants); // a taken name: DS_UNIQUE_VIOLATION (409)
    this.ctx.log(`auth: user ${JSON.stringify(body.username)} created (role ${role})`);
    return publicUser(user);
  }

  /** A new password; `currentPassword` is checked when given (a user changing their own). */
  async setPassword(username: string, input: unknown, checkCurrent: boolean): Promise<PublicUser> {
    const body = requireBody(input);
    const password = requirePassword(body.password);
    const user = await this.require(username);
    if (checkCurrent) {
      const current = typeof body.currentPassword === 'string' ? body.currentPassword : '';
      const ok = typeof user.passwordHash === 'string' && current !== '' && (await verifyPassword(current, user.passwordHash));
      if (!ok) throw SERVER_ERRORS.authCredentials('"currentPassword" is wrong.', { path: 'currentPassword' });
    }
    const updated = await this.ctx.stack().updateDoc(user._id, { passwordHash: await hashPassword(password), legacyPassword: null }, { origin: 'system' });
    this.ctx.log(`auth: password of ${JSON.stringify(username)} changed`);
    return publicUser(updated);
  }

  async setRole(username: string, input: unknown): Promise<PublicUser> {
    const role = requireRole(requireBody(input).role);
    const user = await this.require(username);
    const updated = await this.ctx.stack().updateDoc(user._id, { role }, { origin: 'system' });
    this.ctx.log(`auth: role of ${JSON.stringify(username)} set to ${role}`);
    return publicUser(updated);
  }

  /** The tenants the user reaches (replaces the list); takes effect on the user's next request. */
  async setTenants(username: string, input: unknown): Promise<PublicUser> {
    const tenants = requireTenantList(requireBody(input).tenants);
    const user = await this.require(username);
    const updated = await this.ctx.stack().updateDoc(user._id, { tenants }, { origin: 'system' });
    this.service?.cache.rememberUser(updated);
    this.ctx.log(`auth: tenants of ${JSON.stringify(username)} set to ${JSON.stringify(tenants)}`);
    return publicUser(updated);
  }

  /** Disabling ends every session of the user at once (the session cache refuses them next request). */
  async setDisabled(username: string, disabled: boolean): Promise<PublicUser> {
    const user = await this.require(username);
    const updated = await this.ctx.stack().updateDoc(user._id, { disabled }, { origin: 'system' });
    if (disabled && this.service) {
      this.service.cache.rememberUser(updated);
      for (const session of await this.service.listSessions(user._id)) await this.service.revoke(session._id, 'disable');
    }
    this.ctx.log(`auth: user ${JSON.stringify(username)} ${disabled ? 'disabled' : 'enabled'}`);
    return publicUser(updated);
  }
}
