import { type Doc } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import type { NodeContext } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { hashPassword } from './passwords.js';
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

  /**
   * A new password. `verifyCurrent` (a user changing their own) checks `currentPassword` first and
   * throws when it is wrong — the route checks it as a login attempt, limiter and gate included.
   * Every session of the user ends (their tokens, cookies and cached Basic credentials are refused
   * from the next request on: sessions are bound to the stored hash, session-cache.ts).
   */
  async setPassword(username: string, input: unknown, verifyCurrent?: (user: Doc, current: string) => Promise<void>): Promise<Doc> {
    const body = requireBody(input);
    const password = requirePassword(body.password);
    const user = await this.require(username);
    if (verifyCurrent) {
      const current = typeof body.currentPassword === 'string' && body.currentPassword.length <= 1024 ? body.currentPassword : '';
      if (current === '') throw SERVER_ERRORS.authCredentials('"currentPassword" is wrong.', { path: 'currentPassword' });
      await verifyCurrent(user, current);
    }
    const passwordHash = this.service ? await this.service.gate.run(0, () => hashPassword(password)) : await hashPassword(password);
    const updated = await this.ctx.stack().updateDoc(user._id, { passwordHash, legacyPassword: null }, { origin: 'system' });
    const ended = this.service ? await this.service.revokeAll(user._id, 'password change') : 0;
    this.ctx.log(`auth: password of ${JSON.stringify(username)} changed; ${ended} session(s) ended`);
    return updated;
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
      await this.service.revokeAll(user._id, 'disable');
    }
    this.ctx.log(`auth: user ${JSON.stringify(username)} ${disabled ? 'disabled' : 'enabled'}`);
    return publicUser(updated);
  }
}
