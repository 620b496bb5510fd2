import { SERVER_ERRORS } from '../errors-codes.js';

/** How deliveries are sent and retried (ServerNodeOptions.webhooks, or WEBHOOK_* variables). */
export interface WebhookOptions {
  /** attempts before a delivery is dead-lettered (WEBHOOK_MAX_ATTEMPTS, default 8) */
  maxAttempts: number;
  /** delay before the second attempt; each next one doubles it (WEBHOOK_RETRY_BASE_MS, default 10 s) */
  retryBaseMs: number;
  /** the longest delay between two attempts (WEBHOOK_RETRY_MAX_MS, default 1 h) */
  retryMaxMs: number;
  /** how long a receiver has to answer (WEBHOOK_TIMEOUT_MS, default 10 s) */
  timeoutMs: number;
  /** deliveries in flight at once (WEBHOOK_CONCURRENCY, default 8) */
  concurrency: number;
  /** the longest the outbox and the sender sleep when nothing wakes them (default 1 s) */
  pollMs: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = { maxAttempts: 8, retryBaseMs: 10_000, retryMaxMs: 3_600_000, timeoutMs: 10_000, concurrency: 8, pollMs: 1000 };

const ENV: Record<keyof WebhookOptions, string> = {
  maxAttempts: 'WEBHOOK_MAX_ATTEMPTS',
  retryBaseMs: 'WEBHOOK_RETRY_BASE_MS',
  retryMaxMs: 'WEBHOOK_RETRY_MAX_MS',
  timeoutMs: 'WEBHOOK_TIMEOUT_MS',
  concurrency: 'WEBHOOK_CONCURRENCY',
  pollMs: 'WEBHOOK_POLL_MS',
};

/** Defaults, then the environment, then the node's options; every value a whole number ≥ 1. */
export function webhookOptions(env: Record<string, string | undefined>, given: Partial<WebhookOptions> = {}): WebhookOptions {
  const out = { ...DEFAULT_WEBHOOK_OPTIONS };
  for (const key of Object.keys(ENV) as Array<keyof WebhookOptions>) {
    const raw = given[key] ?? (env[ENV[key]] ? Number(env[ENV[key]]) : undefined);
    if (raw === undefined) continue;
    if (!Number.isInteger(raw) || raw < 1) throw SERVER_ERRORS.serverConfigInvalid(`${ENV[key]} (webhooks.${key}) must be a whole number ≥ 1 (got ${String(raw)}).`, { path: ENV[key] });
    out[key] = raw;
  }
  return out;
}

/** Exponential back-off with jitter: base × 2^(attempt-1), capped, then between half and all of it. */
export function retryDelay(options: WebhookOptions, attempt: number, random = Math.random): number {
  const ceiling = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
