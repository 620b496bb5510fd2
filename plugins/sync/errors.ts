import { createError, DocstackError } from '../../index.js';

/** The error codes of the sync plugin (docs/errors.md). */
export const SYNC_ERRORS = {
  syncOptions: createError('DS_SYNC_OPTIONS', 'stack.sync was called with invalid options (remote, auth, classes, internalDocs, pullAs).'),
  syncLogin: createError('DS_SYNC_LOGIN', 'Logging in to the remote node failed (wrong credentials, or the node refused), or the remote refused the session or token (401).', { status: 401 }),
  syncNetwork: createError('DS_SYNC_NETWORK', 'The remote could not be reached (connection refused or reset, DNS, timeout); `cause` holds the transport error. A live sync retries; a one-shot sync rejects.', { status: 503 }),
  syncRemote: createError('DS_SYNC_REMOTE', 'The remote answered an error that stopped the sync (`details.status`, `details.remoteCode` when the remote is a docstack node).', { status: 502 }),
};

/** For `definePlugin({ errors })`. */
export const syncErrorList = Object.values(SYNC_ERRORS);

type Loose = { code?: unknown; status?: unknown; name?: unknown; message?: unknown; reason?: unknown; cause?: unknown; details?: unknown };

/**
 * Any error a sync ends or pauses with, as a DocstackError. PouchDB copies an error thrown in
 * the fetch wrapper into a PouchError (own fields kept, class lost): `known` holds the instances
 * the wrapper threw, so the original comes back when the copy carries its code and message.
 */
export function toSyncError(err: unknown, known: readonly DocstackError[] = []): DocstackError {
  if (err instanceof DocstackError) return err;
  const e = (err ?? {}) as Loose;
  if (typeof e.code === 'string' && e.code.startsWith('DS_')) {
    const original = known.find((k) => k.code === e.code && k.message === e.message);
    if (original) return original;
    const details = typeof e.details === 'object' && e.details !== null ? (e.details as Record<string, unknown>) : undefined;
    return new DocstackError(e.code, String(e.message ?? e.reason ?? e.code), { cause: err, ...(details ? { details } : {}) });
  }
  const status = typeof e.status === 'number' ? e.status : null;
  const reason = String(e.reason ?? e.message ?? 'unknown error');
  if (status === 401) return SYNC_ERRORS.syncLogin(`The remote refused the session (401): ${reason}`, { cause: err, details: { status } });
  if (status === null || status === 0) return SYNC_ERRORS.syncNetwork(`The remote could not be reached: ${reason}`, { cause: err });
  const remoteCode = typeof e.code === 'string' ? e.code : null;
  return SYNC_ERRORS.syncRemote(`The remote answered ${status}: ${reason}`, { cause: err, details: { status, remoteCode } });
}

/** A fetch that failed without an answer (refused, reset, DNS, timeout, aborted). */
export function networkError(url: string, cause: unknown): DocstackError {
  const inner = (cause as { cause?: { code?: unknown } })?.cause?.code ?? (cause as { code?: unknown })?.code;
  const what = typeof inner === 'string' ? inner : String((cause as Error)?.message ?? cause);
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // a relative URL: keep it as it is
  }
  return SYNC_ERRORS.syncNetwork(`${origin} could not be reached (${what}).`, { cause, details: { transport: what } });
}
