import type { ChangeEvent, ClientStack, Doc } from '../../index.js';
import type { AuthLocals } from '../context.js';
import { roleOf, SESSION_CLASS, tenantsOf, USER_CLASS, type Role } from './users.js';

interface SessionEntry {
  active: boolean;
  rev?: string;
  userId?: string;
  expiresAt?: number;
}

interface UserEntry {
  active: boolean;
  rev?: string;
  username?: string;
  role?: Role;
  tenants?: string[];
}

const SESSION_PREFIX = `${SESSION_CLASS}-`;
const USER_PREFIX = `${USER_CLASS}-`;
/** A bound on memory: past it the cache starts over (entries are re-read once on demand). */
const MAX_ENTRIES = 100_000;

/**
 * Which sessions (and users) are active, so that an authenticated request costs a map lookup,
 * not a database read. It stays exact without polling:
 * - every write to a ~UserSession or ~User document, by any writer of the store (another node
 *   instance, replication), arrives on the stack's change feed and drops the cached entry unless
 *   it is the revision we already hold; the next request re-reads that one document;
 * - a revocation made here marks the entry revoked synchronously, before the write, so the very
 *   next request is refused even before the change feed speaks.
 * A read that races with a change is answered but not cached (the epoch check), so a stale
 * "active" can never be pinned in the cache.
 */
export class SessionCache {
  private stack: ClientStack | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly users = new Map<string, UserEntry>();
  private epoch = 0;

  /** Follows this stack; a different one (after a reset) starts from an empty cache. */
  attach(stack: ClientStack): void {
    if (this.stack === stack) return;
    this.detach();
    this.stack = stack;
    this.unsubscribe = stack.changes.subscribe((change) => this.onChange(change));
    stack.once('closed', () => {
      if (this.stack === stack) this.detach();
    });
  }

  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stack = null;
    this.sessions.clear();
    this.users.clear();
    this.epoch++;
  }

  private onChange(change: ChangeEvent): void {
    if (change.id.startsWith(SESSION_PREFIX)) {
      if (this.sessions.get(change.id)?.rev === change.rev) return;
      this.sessions.delete(change.id);
      this.epoch++;
    } else if (change.id.startsWith(USER_PREFIX)) {
      if (this.users.get(change.id)?.rev === change.rev) return;
      this.users.delete(change.id);
      this.epoch++;
    }
  }

  /** A session this node just wrote (login): no read needed on its first request. */
  rememberSession(doc: Doc): void {
    this.bound(this.sessions).set(doc._id, sessionEntry(doc));
  }

  rememberUser(doc: Doc): void {
    this.bound(this.users).set(doc._id, userEntry(doc));
  }

  /** Synchronous: the next request with this session is refused, whatever the write does. */
  revoke(sessionId: string): void {
    this.sessions.set(sessionId, { active: false });
    this.epoch++;
  }

  /** Forget one session (a revocation write failed: the stored state decides again). */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.epoch++;
  }

  /** The caller of a verified token, or null when its session or user is not active. */
  async resolve(stack: ClientStack, userId: string, sessionId: string, now = Date.now()): Promise<AuthLocals | null> {
    this.attach(stack);
    const session = this.sessions.get(sessionId) ?? (await this.load(stack, sessionId, this.sessions, sessionEntry, SESSION_CLASS));
    if (!session.active || session.userId !== userId || (session.expiresAt ?? 0) <= now) return null;
    const user = this.users.get(userId) ?? (await this.load(stack, userId, this.users, userEntry, USER_CLASS));
    if (!user.active) return null;
    return { user: { id: userId, username: user.username ?? '', role: user.role ?? 'user', tenants: user.tenants ?? [] }, sessionId };
  }

  private async load<E extends { active: boolean }>(
    stack: ClientStack,
    id: string,
    map: Map<string, E>,
    toEntry: (doc: Doc) => E,
    className: string,
  ): Promise<E> {
    const epoch = this.epoch;
    const doc = await stack.getDocument(id, { includeInactive: true });
    const entry = doc && doc['~class'] === className ? toEntry(doc) : ({ active: false } as E);
    if (epoch === this.epoch && this.stack === stack) this.bound(map).set(id, entry);
    return entry;
  }

  private bound<E>(map: Map<string, E>): Map<string, E> {
    if (map.size >= MAX_ENTRIES) map.clear();
    return map;
  }
}

function sessionEntry(doc: Doc): SessionEntry {
  const expiresAt = Date.parse(String(doc.expiresAt));
  return {
    active: doc.active !== false && Number.isFinite(expiresAt),
    rev: doc._rev,
    userId: String(doc.userId),
    expiresAt,
  };
}

function userEntry(doc: Doc): UserEntry {
  // a disabled user is refused like a deleted one, from the next request on
  return { active: doc.active !== false && doc.disabled !== true, rev: doc._rev, username: String(doc.username), role: roleOf(doc), tenants: tenantsOf(doc) };
}
