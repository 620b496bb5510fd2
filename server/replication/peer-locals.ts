import type { ClientStack } from '../../index.js';
import type { Caller } from '../authorization/index.js';
import { SURFACE_ERRORS } from '../errors-surface.js';

/** A checkpoint PouchDB writes is well under 2 KB (a session id and the last 5 sequences). */
export const MAX_LOCAL_BYTES = 16 * 1024;
/** `_local` documents one user keeps on one database: a checkpoint per replication they run. */
export const MAX_LOCALS_PER_USER = 100;

/** The node's record of which `_local` ids a user wrote on a stack (itself a `_local/~…`: no peer reads or writes it). */
interface OwnedLocals {
  _id: string;
  _rev?: string;
  ids: string[];
}

const recordId = (userId: string) => `_local/~peer-locals/${userId}`;

/** One change at a time per user and stack: two PUTs at once cannot both take the last place. */
const queues = new WeakMap<ClientStack, Map<string, Promise<unknown>>>();

function serialized<T>(stack: ClientStack, userId: string, run: () => Promise<T>): Promise<T> {
  const byUser = queues.get(stack) ?? new Map<string, Promise<unknown>>();
  queues.set(stack, byUser);
  const result = (byUser.get(userId) ?? Promise.resolve()).catch(() => undefined).then(run);
  const settled = result.catch(() => undefined);
  byUser.set(userId, settled);
  void settled.then(() => {
    if (byUser.get(userId) === settled) byUser.delete(userId);
  });
  return result;
}

/**
 * A peer's `_local` documents (replication checkpoints) are not application documents, so no
 * quota counts them: they are bounded here instead — 16 KB each and 100 per user and database —
 * so that `_local` writes are no way around a quota. `write` stores the document; the id is
 * recorded as the caller's once stored.
 */
export function putPeerLocal<T>(stack: ClientStack, caller: Caller, localId: string, body: Record<string, unknown>, write: () => Promise<T>): Promise<T> {
  const size = Buffer.byteLength(JSON.stringify(body));
  if (size > MAX_LOCAL_BYTES) {
    return Promise.reject(SURFACE_ERRORS.localLimit(`A _local document is at most ${MAX_LOCAL_BYTES} bytes as JSON (this one is ${size}).`, { details: { id: `_local/${localId}` } }));
  }
  return serialized(stack, caller.userId, async () => {
    const record = (await stack.storage.get<OwnedLocals>(recordId(caller.userId))) ?? { _id: recordId(caller.userId), ids: [] };
    const known = record.ids.includes(localId);
    if (!known && record.ids.length >= MAX_LOCALS_PER_USER) {
      throw SURFACE_ERRORS.localLimit(`You keep ${record.ids.length} _local documents on this database, the most a user may; delete one first.`, { details: { id: `_local/${localId}` } });
    }
    const written = await write();
    if (!known) await stack.storage.put<OwnedLocals>({ ...record, ids: [...record.ids, localId] });
    return written;
  });
}

/** A `_local` document removed: its place in the caller's allowance is free again. */
export function forgetPeerLocal<T>(stack: ClientStack, caller: Caller, localId: string, remove: () => Promise<T>): Promise<T> {
  return serialized(stack, caller.userId, async () => {
    const removed = await remove();
    const record = await stack.storage.get<OwnedLocals>(recordId(caller.userId));
    if (record?.ids.includes(localId)) await stack.storage.put<OwnedLocals>({ ...record, ids: record.ids.filter((id) => id !== localId) });
    return removed;
  });
}
