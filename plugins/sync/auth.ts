import { DocstackError } from '../../kernel/errors.js';

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

/**
 * The `fetch` given to PouchDB's http adapter: every request carries `Authorization: Bearer`.
 * With a username and password the token comes from `<origin>/login` (the node answers with
 * the httpOnly cookie `jwtToken`), and is fetched again once when a request gets 401 — a live
 * sync outlives a one-hour token. The password stays in this closure; it is never logged.
 * In a browser the httpOnly cookie cannot be read (that is its point): the browser keeps it and
 * sends it with every request (PouchDB asks for `credentials: 'include'`), so there the login is
 * all that is needed — a cookie session, refreshed the same way on a 401.
 */
export function authenticatedFetch(remote: string, auth: SyncAuth | undefined, baseFetch: Fetch): Fetch {
  if (!auth) return baseFetch;
  /** the bearer token, or null for a cookie session the browser holds */
  let token: Promise<string | null> | null = 'token' in auth ? Promise.resolve(auth.token) : null;
  const currentToken = () => (token ??= login(remote, auth as { username: string; password: string }));
  const send = async (url: string | Request, init: RequestInit & { headers?: Headers } = {}) => {
    const headers = new Headers(init.headers);
    const bearer = await currentToken();
    if (bearer !== null) headers.set('Authorization', `Bearer ${bearer}`);
    return baseFetch(url, { ...init, headers });
  };
  return async (url, init) => {
    const res = await send(url, init);
    if (res.status !== 401 || 'token' in auth) return res;
    token = null; // expired or revoked: log in again, once
    return send(url, init);
  };
}

/** A browser (or a worker) keeps cookies for the page; Node's fetch has no cookie jar. */
const hasCookieJar = () => typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node !== 'string';

async function login(remote: string, auth: { username: string; password: string }): Promise<string | null> {
  const origin = new URL(remote).origin;
  const res = await fetch(`${origin}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: auth.username, password: auth.password }),
    // a browser app on another origin: the node's cookie is stored only for a credentialed request
    credentials: 'include',
  });
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
