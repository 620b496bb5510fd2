import { DRIVE_ERRORS } from './errors.js';
import type { DriveRetry } from './adapter.js';

export interface RetryPolicy {
  /** attempts after the first, for 429, 503 and network errors (default 4) */
  retries?: number;
  /** first wait when the drive gives no Retry-After, in ms; it doubles each time (default 250) */
  baseDelayMs?: number;
  /** longest single wait, in ms (default 30,000): a Retry-After above it is cut to it */
  maxDelayMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After in ms (seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfterMs(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Sends a request until it gets an answer that is not 429 (rate limited) or 503, nor a network
 * error: waiting what the drive's Retry-After asks, else an exponential back-off with jitter.
 * After the last retry the 429/503 answer is returned (the caller reports it), a network error
 * becomes DS_DRIVE_HTTP. Every wait is reported to `onRetry` first.
 */
export async function sendWithRetry(
  send: () => Promise<Response>,
  policy: RetryPolicy,
  onRetry: (retry: DriveRetry) => void,
  what: string,
): Promise<Response> {
  const retries = policy.retries ?? 4;
  const base = policy.baseDelayMs ?? 250;
  const max = policy.maxDelayMs ?? 30_000;
  const backOff = (attempt: number) => Math.min(max, base * 2 ** (attempt - 1) * (1 + Math.random() / 2));
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await send();
    } catch (err) {
      if (attempt > retries) {
        throw DRIVE_ERRORS.http(`${what} failed: the drive could not be reached (${(err as Error).message}).`, { details: { cause: (err as Error).message } });
      }
      const delayMs = backOff(attempt);
      onRetry({ reason: 'network', attempt, delayMs });
      await sleep(delayMs);
      continue;
    }
    if ((res.status !== 429 && res.status !== 503) || attempt > retries) return res;
    await res.body?.cancel().catch(() => undefined);
    const delayMs = Math.min(max, retryAfterMs(res) ?? backOff(attempt));
    onRetry({ reason: res.status === 429 ? 'rate-limit' : 'unavailable', status: res.status, attempt, delayMs });
    await sleep(delayMs);
  }
}
