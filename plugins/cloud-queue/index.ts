import { cloudAuth, DEFAULT_IAM_URL } from './auth.js';
import { CLOUD_ERRORS, cloudErrorList } from './errors.js';
import { CloudQueue, type FlushResult } from './queue.js';
import { type ClientStack, definePlugin, DocstackError } from '../../index.js';

export { DEFAULT_IAM_URL, type CloudCredentials } from './auth.js';
export type { FlushResult } from './queue.js';

export interface CloudQueueOptions {
  /** the target database, e.g. `https://<account>.cloudantnosqldb.appdomain.cloud/mydb` (default: `CLOUDANT_URL`); user:password in it means Basic auth */
  url?: string;
  /** an IBM Cloud IAM API key, exchanged for a bearer token (default: `CLOUDANT_APIKEY`) */
  apiKey?: string;
  /** where the API key is exchanged (default IBM Cloud's `https://iam.cloud.ibm.com/identity/token`) */
  iamUrl?: string;
  /** HTTP Basic for a plain CouchDB or a docstack node (instead of an API key) */
  username?: string;
  password?: string;
  /** changes per `_bulk_docs` batch; this many local writes also start a flush (default 100) */
  batchSize?: number;
  /** flush every this many ms (default 30,000; 0: only on size and `flush()`) */
  intervalMs?: number;
  /** first wait after a failed flush, doubling each time (default 1,000 ms) */
  retryDelayMs?: number;
  /** longest wait between retries (default 300,000 ms) */
  maxRetryDelayMs?: number;
  /** where `CLOUDANT_URL` / `CLOUDANT_APIKEY` are read when `url` / `apiKey` are not given (default `process.env` where there is one) */
  env?: Record<string, string | undefined>;
  /** a fetch of your own; default the global fetch */
  fetch?: typeof fetch;
}

/** The cloud queue's API; `stack.cloudQueue` is it. */
export interface CloudQueueApi {
  /** Sends everything queued now, batch by batch; rejects (DS_CLOUD_HTTP, DS_CLOUD_AUTH) when a batch is not taken — it stays queued. */
  flush(): Promise<FlushResult>;
  /** Writes not yet flushed. */
  pending(): Promise<number>;
}

const processEnv = () => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};

function wholeNumber(options: CloudQueueOptions, key: 'batchSize' | 'intervalMs' | 'retryDelayMs' | 'maxRetryDelayMs', min: number, fallback: number): number {
  const value = options[key];
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw CLOUD_ERRORS.options(`The cloud queue's ${key} must be a whole number ≥ ${min}.`, { path: key });
  return value;
}

/** The options made whole: the URL without credentials, the credentials apart. */
function settle(options: CloudQueueOptions) {
  const env = options.env ?? processEnv();
  const raw = options.url ?? (env.CLOUDANT_URL || undefined); // an empty variable is an unset one
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw CLOUD_ERRORS.options('The cloud queue needs { url } or CLOUDANT_URL: the http(s) URL of the target database.', { path: 'url' });
  }
  if (!/^https?:$/.test(url.protocol)) throw CLOUD_ERRORS.options('The cloud queue url must be http(s).', { path: 'url' });
  const username = options.username ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const password = options.password ?? (url.password ? decodeURIComponent(url.password) : undefined);
  url.username = '';
  url.password = '';
  const apiKey = options.apiKey ?? (env.CLOUDANT_APIKEY || undefined);
  if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === '')) throw CLOUD_ERRORS.options('The API key must be a non-empty string.', { path: 'apiKey' });
  return {
    url: url.href.replace(/\/+$/, ''),
    credentials: { ...(apiKey ? { apiKey, iamUrl: options.iamUrl ?? DEFAULT_IAM_URL } : {}), ...(username !== undefined ? { username, password: password ?? '' } : {}) },
    batchSize: wholeNumber(options, 'batchSize', 1, 100),
    intervalMs: wholeNumber(options, 'intervalMs', 0, 30_000),
    retryDelayMs: wholeNumber(options, 'retryDelayMs', 1, 1_000),
    maxRetryDelayMs: wholeNumber(options, 'maxRetryDelayMs', 1, 300_000),
  };
}

const unref = (timer: unknown) => (timer as { unref?: () => void } | undefined)?.unref?.();

/**
 * The specification's earlier, opt-in replication building block: local changes queued durably
 * (the changes feed after a `_local` checkpoint) and flushed in batches — on a schedule, when
 * `batchSize` writes are waiting, on `flush()` — to a CouchDB-compatible endpoint (Cloudant with
 * an IAM API key, CouchDB with Basic auth) as `_bulk_docs` with `new_edits: false`, revisions and
 * conflicts kept. Not in any preset: `import { cloudQueuePlugin } from 'docstack/cloud-queue'`.
 */
export const cloudQueuePlugin = definePlugin<CloudQueueOptions | undefined, CloudQueueApi, { cloudQueue: CloudQueueApi }>({
  name: 'cloud-queue',
  errors: cloudErrorList,
  setup({ hooks, stack }, options = {}): CloudQueueApi {
    const settings = settle(options);
    const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const queue = new CloudQueue(stack as ClientStack, { url: settings.url, batchSize: settings.batchSize, auth: cloudAuth(settings.credentials, baseFetch), fetch: baseFetch });

    let running: Promise<FlushResult> | null = null;
    let closing = false;
    let failures = 0;
    let interval: ReturnType<typeof setInterval> | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let written = 0; // local writes since the last flush started: `batchSize` of them start one

    // one count at a time however fast writes come: a burst of writes gives one or two events, not one read per write
    let counting = false;
    let recount = false;
    const emitPending = async (): Promise<void> => {
      if (counting) {
        recount = true;
        return;
      }
      counting = true;
      try {
        do {
          recount = false;
          const pending = await queue.pending();
          if (!closing) stack.emit('cloud-queue:pending', { pending });
        } while (recount && !closing);
      } finally {
        counting = false;
      }
    };

    const run = (): Promise<FlushResult> => {
      if (running) return running.then(() => run(), () => run());
      written = 0;
      clearTimeout(retry);
      retry = undefined;
      const flushing = (async () => {
        try {
          const { sent, batches } = await queue.flush(
            () => closing,
            (count, seq) => {
              void queue.pending().then((pending) => stack.emit('cloud-queue:flushed', { sent: count, seq, pending }), () => undefined);
            },
            (line) => stack.emit('cloud-queue:rejected', { id: line.id, rev: line.rev, error: line.error, reason: line.reason }),
          );
          failures = 0;
          const pending = await queue.pending();
          return { sent, batches, pending };
        } catch (err) {
          failures += 1;
          const retryInMs = closing ? null : Math.min(settings.maxRetryDelayMs, settings.retryDelayMs * 2 ** (failures - 1));
          if (retryInMs !== null) {
            retry = setTimeout(() => void run().catch(() => undefined), retryInMs);
            unref(retry);
          }
          const code = err instanceof DocstackError ? err.code : 'DS_CLOUD_HTTP';
          stack.emit('cloud-queue:failed', { code, message: (err as Error).message, attempt: failures, retryInMs, pending: await queue.pending().catch(() => null) });
          throw err;
        }
      })();
      running = flushing;
      void flushing.finally(() => {
        if (running === flushing) running = null;
      }).catch(() => undefined);
      return flushing;
    };
    const background = () => void run().catch(() => undefined); // failures are events (and a retry)

    stack.on('change', () => {
      if (closing) return;
      written += 1;
      void emitPending().catch(() => undefined);
      if (written >= settings.batchSize && !running) background();
    });
    hooks.onOpen.tapPromise('cloud-queue', async () => {
      if (settings.intervalMs === 0) return;
      interval = setInterval(background, settings.intervalMs);
      unref(interval);
      if ((await queue.pending()) > 0) background(); // what a crash left queued goes at once
    });
    hooks.onClose.tapPromise('cloud-queue', async () => {
      closing = true;
      clearInterval(interval);
      clearTimeout(retry);
      await running?.catch(() => undefined);
    });
    return { flush: run, pending: () => queue.pending() };
  },
  members: (api) => ({ cloudQueue: api }),
});
