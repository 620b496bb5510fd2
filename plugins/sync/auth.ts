import { networkError } from './errors.js';
import { DocstackError } from '../../index.js';

/** A failed login at the remote node: DS_SYNC_LOGIN, with the HTTP status in details. */
export class SyncLoginError extends DocstackError {
  /** the HTTP status the remote answered (undefined: it answered without a token) */
  readonly remoteStatus?: number;

  constructor(message: string, remoteStatus?: number) {
    super('DS_SYNC_LOGIN', message, { details: { status: remoteStatus } });
    if (remoteStatus !== undefined) this.remoteStatus = remoteStatus;
  }
}

export type SyncAuth = { username: string; password: string } | { token: string };

export type Fetch = (url: string | Request, init?: RequestInit & { headers?: Headers }) => Promise<Response>;

/** A session (bearer token, or null for a cookie session the browser holds) being got or held. */
interface Session {
  /** SHA-256 of the password it was opened with: another password logs in again */
  secret: string;
  token: Promise<string | null>;
}

/**
 * The sessions one stack holds, by remote origin and username: every sync of the stack to the
 * same node as the same user reuses the token (a login is ≈1.3 s of password hashing on the
 * node) until the node answers 401. Kept by the plugin instance, never in a module variable.
 */
export class SyncSessions {
  private readonly sessions = new Map<string, Session>();

  /** The token for these credentials: the held one, else a new login shared by concurrent callers. */
  token(remote: string, auth: { username: string; password: string }, secret: string, fresh = false): Promise<string | null> {
    const key = `${new URL(remote).origin}\n${auth.username}`;
    const held = this.sessions.get(key);
    if (held && held.secret === secret && !fresh) return held.token;
    // a refused token is dropped only if no other sync has replaced it meanwhile
    const session: Session = { secret, token: login(remote, auth) };
    this.sessions.set(key, session);
    session.token.catch(() => {
      if (this.sessions.get(key) === session) this.sessions.delete(key);
    });
    return session.token;
  }

  /** The token a request got 401 with is stale: the next `token` call logs in again (once for all callers). */
  refused(remote: string, auth: { username: string }, token: Promise<string | null>): void {
    const key = `${new URL(remote).origin}\n${auth.username}`;
    if (this.sessions.get(key)?.token === token) this.sessions.delete(key);
  }

  clear(): void {
    this.sessions.clear();
  }
}

/** SHA-256 of a password, hex: what a kept session is matched with (the password itself is not kept). */
export async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The `fetch` given to PouchDB's http adapter: every request carries `Authorization: Bearer`.
 * With a username and password the token comes from `<origin>/login` (the node answers with
 * the httpOnly cookie `jwtToken`) through the stack's `SyncSessions`, and is fetched again once
 * when a request gets 401 — a live sync outlives a one-hour token. The password stays in this
 * closure; it is never logged. In a browser the httpOnly cookie cannot be read (that is its
 * point): the browser keeps it and sends it with every request (PouchDB asks for
 * `credentials: 'include'`), so there the login is all that is needed — a cookie session,
 * refreshed the same way on a 401.
 */
export function authenticatedFetch(remote: string, auth: SyncAuth | undefined, baseFetch: Fetch, sessions: SyncSessions = new SyncSessions()): Fetch {
  if (!auth) return baseFetch;
  if ('token' in auth) {
    return (url, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${auth.token}`);
      return baseFetch(url, { ...init, headers });
    };
  }
  let token: Promise<string | null> | null = null;
  // a refused login is not tried again by this sync's other requests (PouchDB goes on after some)
  let refused: SyncLoginError | null = null;
  let secret: Promise<string> | null = null;
  const send = async (url: string | Request, init: RequestInit & { headers?: Headers }, fresh: boolean) => {
    const matched = await (secret ??= digest(auth.password));
    if (refused) throw refused;
    const headers = new Headers(init.headers);
    const current = sessions.token(remote, auth, matched, fresh);
    token = current;
    const bearer = await current.catch((err: unknown) => {
      if (err instanceof SyncLoginError) refused = err;
      throw err;
    });
    if (bearer !== null) headers.set('Authorization', `Bearer ${bearer}`);
    return baseFetch(url, { ...init, headers });
  };
  return async (url, init = {}) => {
    const res = await send(url, init, false);
    if (res.status !== 401) return res;
    if (token) sessions.refused(remote, auth, token); // expired or revoked: log in again, once
    return send(url, init, true);
  };
}

/** A browser (or a worker) keeps cookies for the page; Node's fetch has no cookie jar. */
const hasCookieJar = () => typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node !== 'string';

/** A login answered 429/503 with a short Retry-After (a busy node, not a locked account) is tried again, this many times. */
const BUSY_RETRIES = 3;
/** Longer Retry-After values (the failure limiter's window) are not waited out: the login fails. */
const MAX_BUSY_WAIT_S = 5;

async function login(remote: string, auth: { username: string; password: string }): Promise<string | null> {
  const origin = new URL(remote).origin;
  let res: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      res = await fetch(`${origin}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: auth.username, password: auth.password }),
        // a browser app on another origin: the node's cookie is stored only for a credentialed request
        credentials: 'include',
      });
    } catch (err) {
      throw networkError(`${origin}/login`, err);
    }
    // the node's password-hashing gate is full, or this address holds its places in it (devices
    // of one office starting together): wait as told and try again
    const wait = Number(res.headers.get('retry-after'));
    if ((res.status !== 429 && res.status !== 503) || attempt >= BUSY_RETRIES || !(wait > 0 && wait <= MAX_BUSY_WAIT_S)) break;
    await res.body?.cancel().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
  if (!res.ok) {
    throw new SyncLoginError(`Logging in to ${origin} failed (HTTP ${res.status}).`, res.status);
  }
  const body = (await res.json().catch(() => ({}))) as { token?: unknown };
  if (typeof body.token === 'string') return body.token;
  for (const cookie of res.headers.getSetCookie?.() ?? []) {
    const match = /^jwtToken=([^;]+)/.exec(cookie);
    if (match) return decodeURIComponent(match[1]);
  }
  if (hasCookieJar()) return null;
  throw new SyncLoginError(`${origin}/login answered without a token.`);
}
