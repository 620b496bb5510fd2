import { createHmac, randomBytes } from 'node:crypto';
import { type Doc, isDocstackError } from '../../index.js';
import type { AuthLocals, NodeContext } from '../context.js';
import { HashGate } from './hash-gate.js';
import { dummyHash, hashPassword, verifyLegacyPassword, verifyPassword } from './passwords.js';
import { FailureLimiter } from './rate-limit.js';
import { restoreUsers } from './reset.js';
import { SessionCache } from './session-cache.js';
import { signToken, VerifiedTokens } from './tokens.js';
import { credentialOf, ensureAuthClasses, ensureInitialAdmin, findUser, SESSION_CLASS } from './users.js';

export interface AuthOptions {
  /** failed logins per username inside the window before 429 (default 5) */
  maxFailuresPerUser?: number;
  /** failed logins per client address inside the window before 429 (default 20: NAT, offices) */
  maxFailuresPerAddress?: number;
  /** default 15 minutes */
  failureWindowMs?: number;
  /** what time it is (default Date.now): session lifetimes are read against it */
  clock?: () => number;
  /** password hashes at once (default config.authHashConcurrency, AUTH_HASH_CONCURRENCY: 1) */
  hashConcurrency?: number;
  /** password hashes waiting at most (default config.authHashQueue, AUTH_HASH_QUEUE: 16) */
  hashQueue?: number;
  /** places in the hashing gate one client address holds at most, running or waiting (default 4) */
  hashesPerAddress?: number;
  /** places in the hashing gate one username holds at most, running or waiting (default 2) */
  hashesPerUser?: number;
}

/** A refused attempt: wrong credentials, too many failures (429), or the hashing gate is full (503). */
export type AttemptRefusal = { ok: false; status: 401 } | { ok: false; status: 429 | 503; retryAfter: number };

export type LoginResult = { ok: true; token: string; sessionId: string; expiresAt: string; maxAgeMs: number } | AttemptRefusal;

export interface LoginRequest {
  username: string;
  password: string;
  ip?: string;
  userAgent?: string;
}

/** Logins, sessions and their revocation, independent of Express (the routes are in index.ts). */
export class AuthService {
  readonly cache = new SessionCache();
  /** signature checks already done, per token, until expiry */
  private readonly verified = new VerifiedTokens();
  private readonly byUser: FailureLimiter;
  private readonly byAddress: FailureLimiter;
  private dummy: Promise<string> | null = null;
  private readonly now: () => number;
  /** verified Basic credentials (HMAC of the pair) → the session they were bound to */
  private readonly basic = new Map<string, { userId: string; sessionId: string }>();
  private readonly basicSecret = randomBytes(32).toString('base64');
  /** Basic checks under way, per credential pair: a client's parallel first requests share one hash */
  private readonly pendingBasic = new Map<string, Promise<AuthLocals | { refused: 401 | 429 | 503; retryAfter?: number }>>();
  private keptUsers: Doc[] | null = null;
  /** every password hash of the node's routes goes through it (hash-gate.ts) */
  readonly gate: HashGate;
  private readonly hashesPerAddress: number;
  private readonly hashesPerUser: number;

  constructor(
    private readonly ctx: NodeContext,
    options: AuthOptions = {},
  ) {
    this.now = options.clock ?? Date.now;
    const windowMs = options.failureWindowMs ?? 15 * 60_000;
    this.byUser = new FailureLimiter({ max: options.maxFailuresPerUser ?? 5, windowMs });
    this.byAddress = new FailureLimiter({ max: options.maxFailuresPerAddress ?? 20, windowMs });
    this.gate = new HashGate({
      concurrency: options.hashConcurrency ?? ctx.config.authHashConcurrency ?? 1,
      maxQueue: options.hashQueue ?? ctx.config.authHashQueue ?? 16,
    });
    this.hashesPerAddress = options.hashesPerAddress ?? 4;
    this.hashesPerUser = options.hashesPerUser ?? 2;
  }

  /** Users to write back into the next stack init() sees (a reset). */
  keepUsers(users: Doc[]): void {
    this.keptUsers = users;
  }

  /** System classes, kept users, the first-boot admin, and the cache on the current stack. */
  async init(): Promise<{ adminCreated: boolean }> {
    const stack = this.ctx.stack();
    await ensureAuthClasses(stack);
    if (this.keptUsers) {
      await restoreUsers(stack, this.keptUsers);
      this.keptUsers = null;
    }
    const adminCreated = await ensureInitialAdmin(stack, this.ctx.config.adminUsername, this.ctx.config.adminPassword, this.ctx.log, this.ctx.config.adminPasswordGenerated !== true);
    this.cache.attach(stack);
    this.dummy ??= dummyHash();
    await this.dummy;
    return { adminCreated };
  }

  close(): void {
    this.basic.clear();
    this.pendingBasic.clear();
    this.cache.detach();
    this.byUser.clear();
    this.byAddress.clear();
  }

  async login(request: LoginRequest): Promise<LoginResult> {
    const attempt = await this.attempt(request);
    return attempt.ok ? this.openSession(attempt.user, request) : attempt;
  }

  /**
   * Checks a username and password, as a login does (the password-change route checks the current
   * password with it too). The limiter's slots for the username and the address are taken before
   * the hash and count as failures while it runs, so concurrent attempts cannot overrun the limit;
   * a success gives them back. The hash waits for the gate, ordered by those counts (a clean
   * address first); a full gate (503), or an address holding its share of the gate already (429,
   * Retry-After 1), gives the slots back: nothing was checked.
   */
  async attempt(request: LoginRequest): Promise<{ ok: true; user: Doc } | AttemptRefusal> {
    const userKey = request.username.normalize('NFC').toLowerCase();
    const addressKey = request.ip ?? 'unknown';
    const retryAfter = Math.max(this.byUser.retryAfter(userKey), this.byAddress.retryAfter(addressKey));
    if (retryAfter > 0) return { ok: false, status: 429, retryAfter };
    // synchronously with the check above: no other attempt runs between them
    const userMark = this.byUser.take(userKey);
    const addressMark = this.byAddress.take(addressKey);
    let checked: { user: Doc | null; ok: boolean };
    try {
      const priority = this.byUser.count(userKey) + this.byAddress.count(addressKey);
      // the user is read inside the gate: a refused attempt costs no storage read
      checked = await this.gate.run(
        priority,
        async () => {
          const user = await findUser(this.ctx.stack(), request.username);
          // the password is checked even for a disabled user: the answer's timing tells nothing
          return this.checkPassword(user, request.password);
        },
        [
          { key: `address\0${addressKey}`, max: this.hashesPerAddress, what: 'from this address' },
          // a person logs in once at a time (concurrent Basic checks of one pair share a hash):
          // more for one username is a guessing burst, answered at once instead of queued
          { key: `user\0${userKey}`, max: this.hashesPerUser, what: 'for this username' },
        ],
      );
    } catch (err) {
      this.byUser.giveBack(userKey, userMark);
      this.byAddress.giveBack(addressKey, addressMark);
      if (isDocstackError(err, 'DS_AUTH_BUSY')) return { ok: false, status: 503, retryAfter: 1 };
      if (isDocstackError(err, 'DS_AUTH_RATE_LIMITED')) return { ok: false, status: 429, retryAfter: 1 };
      throw err;
    }
    if (!checked.user || !checked.ok || checked.user.disabled === true) {
      this.ctx.log(`auth: failed login for ${this.loggable(request.username, checked.user)} from ${JSON.stringify(addressKey)}`);
      return { ok: false, status: 401 };
    }
    this.byUser.reset(userKey);
    this.byAddress.giveBack(addressKey, addressMark);
    return { ok: true, user: checked.user };
  }

  /**
   * What a failed login's log line says of the username: the name of an existing user, else a
   * digest under a per-process key and the length — what was typed may be a password in the
   * wrong field, and never reaches the log.
   */
  private loggable(username: string, user: Doc | null): string {
    if (user) return JSON.stringify(String(user.username));
    const digest = createHmac('sha256', this.basicSecret).update('log\0').update(username).digest('hex').slice(0, 12);
    return `an unknown username (#${digest}, ${username.length} characters)`;
  }

  /** A new session for a user whose credentials were just checked; its token and expiry. */
  async openSession(user: Doc, request: Pick<LoginRequest, 'ip' | 'userAgent'>): Promise<LoginResult & { ok: true }> {
    const stack = this.ctx.stack();
    const { config } = this.ctx;
    const now = this.now();
    const expSec = Math.floor(now / 1000) + config.jwtTtl;
    const expiresAt = new Date(expSec * 1000).toISOString();
    const session = await stack.createDoc(
      {
        '~class': SESSION_CLASS,
        userId: user._id,
        username: user.username,
        createdAt: new Date(now).toISOString(),
        expiresAt,
        credential: credentialOf(user),
        ...(request.userAgent ? { userAgent: request.userAgent.slice(0, 512) } : {}),
        ...(request.ip ? { ip: request.ip.slice(0, 64) } : {}),
      },
      { origin: 'system' },
    );
    this.cache.rememberSession(session);
    const token = await signToken(this.ctx.keys(), config, user._id, session._id, expSec);
    this.ctx.events.emit('login', { username: String(user.username), sessionId: session._id });
    return { ok: true, token, sessionId: session._id, expiresAt, maxAgeMs: expSec * 1000 - now };
  }

  /**
   * A current hash is verified with scrypt. A legacy credential (seed: RSA-OAEP under
   * PSW_PUBLIC_KEY) is opened with PSW_PRIVATE_KEY and, when it matches, replaced by a hash at
   * once; the node keeps no reversible password after that login. Missing credentials still
   * cost one scrypt, so the answer's timing does not tell which case it was.
   */
  private async checkPassword(user: Doc | null, password: string): Promise<{ user: Doc | null; ok: boolean }> {
    if (user && typeof user.passwordHash === 'string') return { user, ok: await verifyPassword(password, user.passwordHash) };
    const legacyKey = this.ctx.config.pswPrivateKeyPem;
    if (user && typeof user.legacyPassword === 'string' && legacyKey) {
      if (!verifyLegacyPassword(password, user.legacyPassword, legacyKey)) {
        await verifyPassword(password, await this.dummyHash());
        return { user, ok: false };
      }
      const passwordHash = await hashPassword(password);
      // the session opened next is bound to the new hash (credentialOf)
      const updated = await this.ctx.stack().updateDoc(user._id, { passwordHash, legacyPassword: null }, { origin: 'system' });
      this.cache.rememberUser(updated);
      this.ctx.log(`auth: migrated the legacy credential of ${JSON.stringify(String(user.username))} to a scrypt hash`);
      return { user: updated, ok: true };
    }
    await verifyPassword(password, await this.dummyHash());
    return { user, ok: false };
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= dummyHash();
    return this.dummy;
  }

  /** The caller of a token, or null: signature, claims and an active session and user. */
  async authenticate(token: string | null): Promise<AuthLocals | null> {
    if (!token) return null;
    const claims = await this.verified.verify(this.ctx.keys(), this.ctx.config, token);
    if (!claims) return null;
    return this.cache.resolve(this.ctx.stack(), claims.sub, claims.sid, this.now());
  }

  /** Refused from the next request on (cache first), then stored as inactive for every instance. */
  async revoke(sessionId: string, by: string): Promise<void> {
    const stack = this.ctx.stack();
    this.cache.attach(stack);
    this.cache.revoke(sessionId);
    try {
      await stack.deleteDocument(sessionId, { origin: 'system' });
    } catch (err) {
      if (!isDocstackError(err, 'DS_DOC_NOT_FOUND')) {
        this.cache.forget(sessionId);
        throw err;
      }
    }
    this.ctx.events.emit('session:revoked', { sessionId, by });
  }

  /** Every session of a user ends (a password change, a disable); the cache refuses them at once. */
  async revokeAll(userId: string, by: string): Promise<number> {
    const sessions = await this.ctx.stack().findDocuments(SESSION_CLASS, { userId });
    for (const session of sessions) this.cache.revoke(session._id);
    for (const session of sessions) await this.revoke(session._id, by);
    return sessions.length;
  }

  /**
   * HTTP Basic credentials (stock CouchDB clients): checked with the same hash and rate limiter as
   * a login, once — a verified pair is cached, keyed by an HMAC under a per-process key (never the
   * password), and bound to a session of its own, so revocation and disabling apply at once and
   * the client does not pay one scrypt per request. When that session expires the next request
   * checks the password again and opens a new one: a replicator outlives any token lifetime.
   */
  async authenticateBasic(header: string, request: Pick<LoginRequest, 'ip' | 'userAgent'>): Promise<AuthLocals | { refused: 401 | 429 | 503; retryAfter?: number }> {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const username = colon > 0 ? decoded.slice(0, colon) : '';
    const password = colon > 0 ? decoded.slice(colon + 1) : '';
    if (!username || !password || username.length > 100 || password.length > 1024) return { refused: 401 };
    const key = this.basicKey(username, password);
    const cached = this.basic.get(key);
    if (cached) {
      const caller = await this.cache.resolve(this.ctx.stack(), cached.userId, cached.sessionId, this.now());
      if (caller) return caller;
      this.basic.delete(key); // expired, revoked, disabled or its password changed: check the credentials again
    }
    let pending = this.pendingBasic.get(key);
    if (!pending) {
      pending = this.loginBasic(key, username, password, request).finally(() => this.pendingBasic.delete(key));
      this.pendingBasic.set(key, pending);
    }
    return pending;
  }

  private async loginBasic(key: string, username: string, password: string, request: Pick<LoginRequest, 'ip' | 'userAgent'>): Promise<AuthLocals | { refused: 401 | 429 | 503; retryAfter?: number }> {
    const result = await this.login({ username, password, ...request });
    if (!result.ok) return result.status === 401 ? { refused: 401 } : { refused: result.status, retryAfter: result.retryAfter };
    const session = (await this.ctx.stack().getDocument(result.sessionId))!;
    if (this.basic.size >= 10_000) this.basic.clear();
    this.basic.set(key, { userId: String(session.userId), sessionId: result.sessionId });
    return (await this.cache.resolve(this.ctx.stack(), String(session.userId), result.sessionId, this.now())) ?? { refused: 401 };
  }

  private basicKey(username: string, password: string): string {
    return createHmac('sha256', this.basicSecret).update(username).update('\0').update(password).digest('base64url');
  }

  /** The caller's sessions that are active and not expired, newest first. */
  async listSessions(userId: string): Promise<Doc[]> {
    const now = this.now();
    const docs = await this.ctx.stack().findDocuments(SESSION_CLASS, { userId });
    return docs.filter((d) => Date.parse(String(d.expiresAt)) > now).sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
  }
}
