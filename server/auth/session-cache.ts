import type { ChangeEvent, ClientStack, Doc, DocChangeEvent } from '../../index.js';
import type { AuthLocals } from '../context.js';
import { credentialOf, roleOf, SESSION_CLASS, tenantsOf, USER_CLASS, type Role } from './users.js';

interface SessionEntry {
  active: boolean;
  rev?: string;
  userId?: string;
  expiresAt?: number;
  /** the user's credential digest when the session was opened (users.ts credentialOf) */
  credential?: string;
}

interface UserEntry {
  active: boolean;
  rev?: string;
  username?: string;
  role?: Role;
  tenants?: string[];
  credential?: string;
}

const SESSION_PREFIX = `${SESSION_CLASS}-`;
const USER_PREFIX = `${USER_CLASS}-`;
/** A bound on memory: past it the cache starts over (entries are re-read once on demand). */
const MAX_ENTRIES = 100_000;

/**
 * Which sessions (and users) are active, so that an authenticated request costs a map lookup,
 * not a database read. It stays exact without polling:
 * - every write the stack stores (createDoc/updateDoc/deleteDocument, a replicated batch through
 *   stack.ingest, the node's own syncs) emits the stack's synchronous `change` event before the
 *   write returns: a ~User or ~UserSession entry is dropped there, so a disable, a demotion or a
 *   password change by a direct document write holds from the very next request — the
 *   asynchronous change feed would lag behind it (issue 26: 40 requests served after a disable);
 * - the change feed stays subscribed for what bypasses the pipeline (raw storage writes): it
 *   drops the entry unless it is the revision we already hold;
 * - a session is bound to its user's credential (credentialOf): once the stored password
 *   changes, by any path, every session opened before is refused, after a restart too;
 * - a revocation made here marks the entry revoked synchronously, before the write, so the very
 *   next request is refused even before the change feed speaks.
 * A read that races with a change is answered but not cached (the epoch check), so a stale
 * "active" can never be pinned in the cache.
 */
export class SessionCache {
  private stack: ClientStack | null = null;
  private unsubscribe: (() => void) | null = null;
  private unlisten: (() => void) | null = null;
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly users = new Map<string, UserEntry>();
  private epoch = 0;

  /** Follows this stack; a different one (after a reset) starts from an empty cache. */
  attach(stack: ClientStack): void {
    if (this.stack === stack) return;
    this.detach();
    this.stack = stack;
    this.unsubscribe = stack.changes.subscribe((change) => this.onChange(change));
    const onWrite = (event: DocChangeEvent) => this.onWrite(event);
    stack.on('change', onWrite);
    this.unlisten = () => stack.off('change', onWrite);
    stack.once('closed', () => {
      if (this.stack === stack) this.detach();
    });
  }

  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unlisten?.();
    this.unlisten = null;
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

  /** Synchronous, inside the write: the next request reads the written document again. */
  private onWrite(event: DocChangeEvent): void {
    if (event.className === USER_CLASS || event.id.startsWith(USER_PREFIX)) this.users.delete(event.id);
    else if (event.className === SESSION_CLASS || event.id.startsWith(SESSION_PREFIX)) this.sessions.delete(event.id);
    else return;
    this.epoch++;
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
    if (!user.active || session.credential === undefined || session.credential !== user.credential) return null;
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
    ...(typeof doc.credential === 'string' ? { credential: doc.credential } : {}),
  };
}

function userEntry(doc: Doc): UserEntry {
  // a disabled user is refused like a deleted one, from the next request on
  return { active: doc.active !== false && doc.disabled !== true, rev: doc._rev, username: String(doc.username), role: roleOf(doc), tenants: tenantsOf(doc), credential: credentialOf(doc) };
}
