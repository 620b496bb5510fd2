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

type Fetch = (url: string | Request, init?: RequestInit & { headers?: Headers }) => Promise<Response>;

/**
 * The `fetch` given to PouchDB's http adapter: every request carries `Authorization: Bearer`.
 * With a username and password the token comes from `<origin>/login` (the node answers with
 * the httpOnly cookie `jwtToken`), and is fetched again once when a request gets 401 — a live
 * sync outlives a one-hour token. The password stays in this closure; it is never logged.
 */
export function authenticatedFetch(remote: string, auth: SyncAuth | undefined, baseFetch: Fetch): Fetch {
  if (!auth) return baseFetch;
  let token: Promise<string> | null = 'token' in auth ? Promise.resolve(auth.token) : null;
  const currentToken = () => (token ??= login(remote, auth as { username: string; password: string }));
  const send = async (url: string | Request, init: RequestInit & { headers?: Headers } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${await currentToken()}`);
    return baseFetch(url, { ...init, headers });
  };
  return async (url, init) => {
    const res = await send(url, init);
    if (res.status !== 401 || 'token' in auth) return res;
    token = null; // expired or revoked: log in again, once
    return send(url, init);
  };
}

async function login(remote: string, auth: { username: string; password: string }): Promise<string> {
  const origin = new URL(remote).origin;
  const res = await fetch(`${origin}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: auth.username, password: auth.password }),
  });
  if (!res.ok) {
    throw new SyncLoginError(`Logging in to ${origin} failed (HTTP ${res.status}).`, res.status);
  }
  const body = (await res.json().catch(() => ({}))) as { token?: unknown };
  if (typeof body.token === 'string') return body.token;
  for (const cookie of res.headers.getSetCookie()) {
    const match = /^jwtToken=([^;]+)/.exec(cookie);
    if (match) return decodeURIComponent(match[1]);
  }
  throw new SyncLoginError(`${origin}/login answered without a token.`);
}
