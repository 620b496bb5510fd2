import type { EventEmitter } from 'events';
import type { KeyObject } from 'node:crypto';
import type { SqlBudget } from '../plugins.config.js';
import type { ClientStack } from '../index.js';

// The server's bottom layer: the shapes every server folder shares (config, keys, logger, caller,
// tenant leases, NodeContext). Types only, importing nothing from server/, so any module may use it.

/** Everything the server node reads from its environment, resolved once at start. */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** the node's own stack, served at /db/<stackName> */
  stackName: string;
  production: boolean;
  /** NODE_ENV=development: relaxed cookies, CORS for corsOrigin */
  development: boolean;
  /** development only: the one origin CORS_ORIGIN allows */
  corsOrigin: string | null;
  /** CORS_ORIGINS: origins allowed in every environment, with credentials (a browser app served elsewhere) */
  corsOrigins: string[];
  /** COOKIE_SAMESITE: the session cookie's SameSite (default strict; lax in development); none implies Secure */
  cookieSameSite: 'strict' | 'lax' | 'none' | null;
  /** JWT lifetime in seconds (JWT_TTL, default 3600) */
  jwtTtl: number;
  jwtIssuer: string;
  jwtAudience: string;
  /** request body limit in bytes (BODY_LIMIT, default 1 MB) */
  bodyLimit: number;
  /**
   * body limit of the writes that carry attachments (ATTACHMENT_BODY_LIMIT, default 16 MiB): a
   * peer's `_bulk_docs` and `PUT` on /db, and an attachment PUT on /api (server/http-limits.ts)
   */
  attachmentBodyLimit?: number;
  adminUsername: string | null;
  /** only present on first boot; never logged */
  adminPassword: string | null;
  /** set by the node when adminPassword is one it generated (no ADMIN_PASSWORD was given) */
  adminPasswordGenerated?: boolean;
  /** BUILDING set: skip runtime initialisation */
  building: boolean;
  /** PEM, from the environment when given */
  jwtPrivateKeyPem: string | null;
  jwtPublicKeyPem: string | null;
  /** passphrase of the private key file at rest (PKCS#8, encrypted) */
  encryptionPassphrase: string | null;
  /** ENCRYPTION_PASSPHRASE_FILE: where a generated passphrase is kept (default `<DATA_DIR>.passphrase`, beside DATA_DIR, never inside it) */
  encryptionPassphraseFile?: string | null;
  /** legacy RSA key pair: only to migrate RSA-encrypted credentials to hashes on first login */
  pswPrivateKeyPem: string | null;
  pswPublicKeyPem: string | null;
  /** TENANT_MAX_OPEN: tenant stacks open at once at most (default 50; least recently used close first) */
  tenantMaxOpen?: number;
  /** TENANT_IDLE_MS: a tenant stack unused this long closes (default 300000, 5 minutes) */
  tenantIdleMs?: number;
  /** QUERY_DEADLINE_MS: a remote query (SQL, a listing with q or sort) is stopped past this (default 1000) */
  queryDeadlineMs?: number;
  /** QUERY_LOOP_SHARE: the share of the event loop (percent) remote queries get together, paced between pages (default 50; server/routes/query-pacer.ts) */
  queryLoopSharePercent?: number;
  /** REFUSAL_PACE_MS: every 429 answer (and 503 DS_AUTH_BUSY) is held this long, so a refused client's retry loop is slowed (default 400; 0: none) */
  refusalPaceMs?: number;
  /** QUERY_CONCURRENCY: remote queries one user may have running at once (default 2; past it 429) */
  queryConcurrency?: number;
  /** SQL_BUDGET_ROWS, SQL_BUDGET_COMBINATIONS, SQL_BUDGET_LIKE_STEPS: what one remote statement may cost */
  sqlBudget?: SqlBudget;
  /** AUTH_HASH_CONCURRENCY: password hashes computed at once (default 1; server/auth/hash-gate.ts) */
  authHashConcurrency?: number;
  /** AUTH_HASH_QUEUE: password hashes waiting at most; past it a login is 503 DS_AUTH_BUSY (default 16) */
  authHashQueue?: number;
  /** HTTP_HEADERS_TIMEOUT_MS: time to receive a request's headers (default 10000; server/http-limits.ts) */
  httpHeadersTimeoutMs?: number;
  /** HTTP_REQUEST_TIMEOUT_MS: time to receive a whole request, body included (default 30000) */
  httpRequestTimeoutMs?: number;
  /** HTTP_KEEPALIVE_TIMEOUT_MS: an idle kept-alive connection closes after it (default 5000) */
  httpKeepAliveTimeoutMs?: number;
  /** HTTP_MAX_CONNECTIONS: open connections at most; more are closed at once (default 1024) */
  httpMaxConnections?: number;
}

/** The node's JWT signing keys (RS256). */
export interface JwtKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A line of the request log or a node event; never carries a secret. */
export type Logger = (line: string) => void;

/**
 * What the route modules (auth, seed routes, replication endpoint) share: the node's config,
 * its keys and stack once started, its logger and its event emitter.
 */
export interface NodeContext {
  config: ServerConfig;
  events: EventEmitter;
  log: Logger;
  /** the open stack; throws before start() finished (the readiness gate answers 503 then) */
  stack(): ClientStack;
  keys(): JwtKeys;
  /**
   * Closes the node's stack, destroys its database and opens it again empty (system patches,
   * plugins' system classes, auth init). The readiness gate answers 503 meanwhile.
   */
  resetStack(): Promise<void>;
  /**
   * The node's tenant stacks (server/tenants): `lease(tenant)` opens one lazily and lends it to a
   * request; absent in contexts built without tenants (tests that mount one router).
   */
  tenants?: TenantLeases;
  /**
   * The stack a request of this caller may use for `tenant`, lent until `release()`: refuses a
   * tenant the caller is not a member of (DS_AUTHZ_TENANT, 403) or that the model does not
   * declare (DS_TENANT_NOT_FOUND). For routes scoped to a tenant.
   */
  stackFor?(tenant: string, caller: Caller): Promise<TenantLease>;
}

/** Who makes a request, as the authorization rules see it (server/authorization/caller.ts builds it). */
export interface Caller {
  /** the `~User` document id ('' for no session) */
  userId: string;
  username: string;
  admin: boolean;
  /** the tenants the user is a member of (server/tenants); an admin reaches every tenant */
  tenants: readonly string[];
}

declare module '../index.js' {
  /** The node's write sessions (ApiWrite, PeerPush) name who writes or pushes: `ctx.session.caller`. */
  interface WriteSession {
    readonly caller?: Caller;
  }
}

/** A tenant stack lent to one request: `release()` when the answer is sent. */
export interface TenantLease {
  stack: ClientStack;
  release(): void;
}

/** What routes need of the node's tenant stacks (server/tenants/stacks.ts implements it). */
export interface TenantLeases {
  /** the open stack of a declared tenant, lent until `release()`; DS_TENANT_NOT_FOUND for any other name */
  lease(tenant: string): Promise<TenantLease>;
}

/** Set on res.locals by the auth middleware for authenticated requests. */
export interface AuthLocals {
  user: { id: string; username: string; role: 'admin' | 'user'; tenants?: string[] };
  sessionId: string;
}
