import { CLOUD_ERRORS } from './errors.js';

/** IBM Cloud's token service: an API key is exchanged here for an hour-long bearer token. */
export const DEFAULT_IAM_URL = 'https://iam.cloud.ibm.com/identity/token';

/** Refresh a token this long before it expires (clocks differ, a batch takes time). */
const EARLY_MS = 60_000;

export interface CloudCredentials {
  /** an IAM API key (Cloudant): exchanged at `iamUrl` for a bearer token */
  apiKey?: string;
  iamUrl?: string;
  /** HTTP Basic, for a plain CouchDB (or a docstack node) */
  username?: string;
  password?: string;
}

/** The Authorization header of the next request; `invalidate()` after a 401 drops a cached token. */
export interface CloudAuth {
  header(): Promise<string | undefined>;
  invalidate(): void;
}

function basic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/**
 * The credentials as headers. The API key and the password stay in this closure: never logged,
 * never in an event or an error's details.
 */
export function cloudAuth(credentials: CloudCredentials, baseFetch: typeof fetch, now: () => number = Date.now): CloudAuth {
  if (credentials.apiKey === undefined) {
    const header = credentials.username !== undefined ? basic(credentials.username, credentials.password ?? '') : undefined;
    return { header: async () => header, invalidate: () => undefined };
  }
  const apiKey = credentials.apiKey;
  const iamUrl = credentials.iamUrl ?? DEFAULT_IAM_URL;
  let cached: { token: string; expiresAt: number } | null = null;
  let pending: Promise<string> | null = null;
  const exchange = async (): Promise<string> => {
    let res: Response;
    try {
      res = await baseFetch(iamUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: 'urn:ibm:params:oauth:grant-type:apikey', apikey: apiKey }).toString(),
      });
    } catch (err) {
      throw CLOUD_ERRORS.http(`The IAM token service at ${new URL(iamUrl).origin} could not be reached (${(err as Error).message}).`);
    }
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; expiration?: unknown };
    if (res.status >= 500 || res.status === 429) throw CLOUD_ERRORS.http(`The IAM token service answered HTTP ${res.status}.`, { details: { status: res.status } });
    if (!res.ok || typeof body.access_token !== 'string') {
      throw CLOUD_ERRORS.auth(`The IAM token service refused the API key (HTTP ${res.status}).`, { details: { status: res.status } });
    }
    const expiresAt = typeof body.expiration === 'number' ? body.expiration * 1000 : now() + (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000;
    cached = { token: body.access_token, expiresAt };
    return body.access_token;
  };
  return {
    async header() {
      if (cached && cached.expiresAt - EARLY_MS > now()) return `Bearer ${cached.token}`;
      pending ??= exchange().finally(() => (pending = null));
      return `Bearer ${await pending}`;
    },
    invalidate: () => {
      cached = null;
    },
  };
}
