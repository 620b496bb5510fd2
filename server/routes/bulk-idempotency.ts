import { createHash } from 'node:crypto';
import type { ClientStack, Doc } from '../../index.js';
import type { Caller } from '../authorization/index.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/** The request header that makes a `POST /:class/_bulk` idempotent (docs/server.md#idempotent-bulk-writes). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** The answer header set when a keyed batch had been started before (a retry). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
const RECORD_PREFIX = '_local/~bulk-key/';

/** What the node keeps of a keyed batch (a `_local` document: never replicated). */
interface KeyRecord {
  _id: string;
  _rev?: string;
  /** sha-256 of the documents as sent: the same key with other documents is refused */
  fingerprint: string;
  count: number;
  at: string;
}

/** One keyed batch: its scope (caller, class, key), its documents' ids, its record. */
export interface KeyedBatch {
  scope: string;
  ids: string[];
  drafts: Record<string, unknown>[];
  fingerprint: string;
}

/**
 * The Idempotency-Key of a request, or undefined when it has none. A key names one batch of one
 * caller for one class: `scope` is their hash, so two users' keys never meet.
 */
export function keyedBatch(header: string | undefined, caller: Caller, className: string, drafts: Record<string, unknown>[]): KeyedBatch | undefined {
  if (header === undefined) return undefined;
  if (!KEY_SHAPE.test(header)) throw SERVER_ERRORS.requestInvalid('Idempotency-Key must be 1 to 255 visible ASCII characters.', { path: 'Idempotency-Key' });
  const scope = sha256(`${caller.userId}\n${className}\n${header}`);
  // a document without `_id` gets one derived from the key and its position: a retry names the same ids
  const ids = drafts.map((d, i) => (typeof d._id === 'string' ? d._id : `${className}-${scope.slice(0, 32)}-${i}`));
  return { scope, ids, drafts: drafts.map((d, i) => ({ ...d, _id: ids[i] })), fingerprint: sha256(JSON.stringify(drafts)) };
}

/**
 * One keyed batch at a time per scope and store in this process: a retry sent while the first
 * runs waits for it. Keyed by stack (a tenant's store is another), forgotten with it.
 */
const runningByStack = new WeakMap<ClientStack, Map<string, Promise<unknown>>>();

/**
 * Creates a keyed batch, or completes it: the record (the batch's fingerprint) is stored before
 * any document, so after a crash a retry of the same request creates only the documents not yet
 * stored and answers all of them (`replayed`: the key had been seen). The same key with other
 * documents is refused (422 DS_IDEMPOTENCY_KEY_REUSED), storing nothing. A refusal of the
 * documents on the first try forgets the key (nothing of the batch is stored).
 */
export function createKeyedBatch(
  stack: ClientStack,
  batch: KeyedBatch,
  create: (drafts: Record<string, unknown>[]) => Promise<Doc[]>,
): Promise<{ docs: Doc[]; replayed: boolean }> {
  const running = runningByStack.get(stack) ?? new Map<string, Promise<unknown>>();
  runningByStack.set(stack, running);
  const before = running.get(batch.scope) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => createOrComplete(stack, batch, create));
  const settled = run.catch(() => undefined);
  running.set(batch.scope, settled);
  void settled.then(() => {
    if (running.get(batch.scope) === settled) running.delete(batch.scope);
  });
  return run;
}

async function createOrComplete(stack: ClientStack, batch: KeyedBatch, create: (drafts: Record<string, unknown>[]) => Promise<Doc[]>): Promise<{ docs: Doc[]; replayed: boolean }> {
  const recordId = RECORD_PREFIX + batch.scope;
  const record = await stack.storage.get<KeyRecord>(recordId);
  if (record && (record.fingerprint !== batch.fingerprint || record.count !== batch.ids.length)) {
    throw SERVER_ERRORS.idempotencyKeyReused(`This Idempotency-Key was used for another batch (${record.count} documents, at ${record.at}); a retry must send the same documents.`, {
      path: 'Idempotency-Key',
    });
  }
  const stored = await stack.storage.getMany(batch.ids);
  if (!record) {
    // a first try: an id the request gives and the store holds already is not this batch's, and the
    // plain create refuses it (DS_DOC_EXISTS) before the key is recorded
    if (stored.some((d) => d !== null)) return { docs: await create(batch.drafts), replayed: false };
    await stack.storage.put<KeyRecord>({ _id: recordId, fingerprint: batch.fingerprint, count: batch.ids.length, at: new Date().toISOString() });
  }
  const missing = batch.drafts.filter((_d, i) => !stored[i]);
  let created: Doc[];
  try {
    created = missing.length > 0 ? await create(missing) : [];
  } catch (err) {
    // the call stored nothing (all or none within the process): on a first try the key is free again
    if (!record) await forget(stack, recordId);
    throw err;
  }
  const byId = new Map(created.map((d) => [d._id, d]));
  const docs: Doc[] = [];
  for (const id of batch.ids) {
    // one stored by an earlier try is answered as it is now (read like any read: decrypted)
    const doc = byId.get(id) ?? (await stack.getDocument(id, { includeInactive: true }));
    if (doc) docs.push(doc);
  }
  return { docs, replayed: record !== null };
}

async function forget(stack: ClientStack, recordId: string): Promise<void> {
  const record = await stack.storage.get<KeyRecord>(recordId);
  if (record?._rev) await stack.storage.remove(recordId, record._rev);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
