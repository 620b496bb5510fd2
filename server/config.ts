import { REMOTE_BUDGET } from '../plugins.config.js';
import type { ServerConfig } from './context.js';
import { DEFAULT_REFUSAL_PACE_MS } from './refusal-pace.js';
import { ATTACHMENT_BODY_LIMIT_DEFAULT } from './http-limits.js';
import { DEFAULT_QUERY_DEADLINE_MS } from './routes/query-pacer.js';
import { SERVER_ERRORS } from './errors-codes.js';

export type Env = Record<string, string | undefined>;

/**
 * SERVER_PORT's default. Not 5000 (macOS's AirPlay receiver holds it, and 7000), nor a port a
 * common neighbour binds on a developer's machine: 3000/4200/5173/8000/8080 (dev servers),
 * 5984 (CouchDB), 4984/4985 (Couchbase Sync Gateway), 5432/6379 (Postgres, Redis), 8888 (Jupyter).
 */
export const DEFAULT_PORT = 7410;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw SERVER_ERRORS.serverConfigInvalid(`${name} must be a whole number from ${min} to ${max} (got "${raw}").`, { path: name });
  }
  return value;
}

/** "1mb", "512kb", "1048576" → bytes. */
function bytes(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw.trim());
  if (!m) throw SERVER_ERRORS.serverConfigInvalid(`${name} must be a size such as 1mb or 512kb (got "${raw}").`, { path: name });
  const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[(m[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'];
  return Number(m[1]) * unit;
}

const text = (env: Env, name: string): string | null => {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
};

/** CORS_ORIGINS: comma-separated origins (scheme://host[:port]); no wildcard, credentials are allowed. */
function origins(env: Env, name: string): string[] {
  const raw = text(env, name);
  if (raw === null) return [];
  return raw.split(',').map((entry) => {
    const origin = entry.trim();
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // refused below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw SERVER_ERRORS.serverConfigInvalid(`${name} must list origins such as https://app.example.com or http://localhost:5173, comma-separated, without a path or "*" (got "${origin}").`, { path: name });
    }
    return origin;
  });
}

function sameSite(env: Env, name: string): 'strict' | 'lax' | 'none' | null {
  const raw = text(env, name)?.toLowerCase() ?? null;
  if (raw === null || raw === 'strict' || raw === 'lax' || raw === 'none') return raw;
  throw SERVER_ERRORS.serverConfigInvalid(`${name} must be strict, lax or none (got "${raw}").`, { path: name });
}

/** PEM keys in a .env file are often written on one line with literal \n. */
const pem = (env: Env, name: string): string | null => text(env, name)?.replace(/\\n/g, '\n') ?? null;

/**
 * The server node's settings, from an environment (process.env after dotenv, or a test's own
 * object). Every invalid value is refused here with the variable's name, before anything starts.
 */
export function loadConfig(env: Env): ServerConfig {
  const nodeEnv = env.NODE_ENV ?? 'production';
  const stackName = env.STACK_NAME || 'docstack';
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(stackName)) {
    throw SERVER_ERRORS.serverConfigInvalid(`STACK_NAME must be letters, digits, "_", "." or "-" (got "${stackName}").`, { path: 'STACK_NAME' });
  }
  return {
    port: integer(env, 'SERVER_PORT', DEFAULT_PORT, 0, 65535),
    // loopback unless told otherwise: a node on a laptop is not reachable from the network by accident
    host: env.HOST || env.SERVER_HOST || '127.0.0.1',
    dataDir: env.DATA_DIR || './data',
    stackName,
    production: nodeEnv !== 'development' && nodeEnv !== 'test',
    development: nodeEnv === 'development',
    corsOrigin: text(env, 'CORS_ORIGIN'),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    cookieSameSite: sameSite(env, 'COOKIE_SAMESITE'),
    jwtTtl: integer(env, 'JWT_TTL', 3600, 60, 30 * 24 * 3600),
    jwtIssuer: env.JWT_ISSUER || 'docstack',
    jwtAudience: env.JWT_AUDIENCE || 'docstack',
    bodyLimit: bytes(env, 'BODY_LIMIT', 1024 * 1024),
    attachmentBodyLimit: bytes(env, 'ATTACHMENT_BODY_LIMIT', ATTACHMENT_BODY_LIMIT_DEFAULT),
    adminUsername: text(env, 'ADMIN_USERNAME') ?? 'admin',
    adminPassword: text(env, 'ADMIN_PASSWORD'),
    building: text(env, 'BUILDING') !== null,
    jwtPrivateKeyPem: pem(env, 'JWT_PRIVATE_KEY'),
    jwtPublicKeyPem: pem(env, 'JWT_PUBLIC_KEY'),
    encryptionPassphrase: text(env, 'ENCRYPTION_PASSPHRASE'),
    encryptionPassphraseFile: text(env, 'ENCRYPTION_PASSPHRASE_FILE'),
    pswPrivateKeyPem: pem(env, 'PSW_PRIVATE_KEY'),
    pswPublicKeyPem: pem(env, 'PSW_PUBLIC_KEY'),
    tenantMaxOpen: integer(env, 'TENANT_MAX_OPEN', 50, 1, 100_000),
    tenantIdleMs: integer(env, 'TENANT_IDLE_MS', 300_000, 1000, 24 * 3600_000),
    queryDeadlineMs: integer(env, 'QUERY_DEADLINE_MS', DEFAULT_QUERY_DEADLINE_MS, 50, 600_000),
    queryConcurrency: integer(env, 'QUERY_CONCURRENCY', 2, 1, 1000),
    queryLoopSharePercent: integer(env, 'QUERY_LOOP_SHARE', 50, 10, 100),
    refusalPaceMs: integer(env, 'REFUSAL_PACE_MS', DEFAULT_REFUSAL_PACE_MS, 0, 900),
    sqlBudget: {
      rows: integer(env, 'SQL_BUDGET_ROWS', REMOTE_BUDGET.rows, 1, 100_000_000),
      combinations: integer(env, 'SQL_BUDGET_COMBINATIONS', REMOTE_BUDGET.combinations, 1, 1e12),
      likeSteps: integer(env, 'SQL_BUDGET_LIKE_STEPS', REMOTE_BUDGET.likeSteps, 1, 1e12),
    },
    authHashConcurrency: integer(env, 'AUTH_HASH_CONCURRENCY', 1, 1, 64),
    authHashQueue: integer(env, 'AUTH_HASH_QUEUE', 16, 0, 10_000),
    httpHeadersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    httpRequestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    httpKeepAliveTimeoutMs: integer(env, 'HTTP_KEEPALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    httpMaxConnections: integer(env, 'HTTP_MAX_CONNECTIONS', 1024, 1, 1_000_000),
  };
}
