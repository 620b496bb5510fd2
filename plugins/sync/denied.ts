import type { SyncDirection, SyncRefusal } from './status.js';
import type { ClientStack } from '../../index.js';

const DENIED_ID = '_local/~sync/denied';

/**
 * Every peer makes its own meta-class and engine documents (system patches): the other side
 * refusing them is expected, not something for the application to resolve.
 */
export function isExpectedRefusal(code: string | null): boolean {
  return code === 'DS_AUTHZ_META_CLASS' || code === 'DS_AUTHZ_INTERNAL';
}

/** A refusal from a replicator `denied` line (`{ id, rev?, error, reason|message, code?, status? }`). */
export function refusalOf(line: Record<string, unknown>, direction: SyncDirection, at: string): SyncRefusal {
  return {
    id: String(line.id ?? ''),
    ...(typeof line.rev === 'string' ? { rev: line.rev } : {}),
    code: typeof line.code === 'string' ? line.code : null,
    reason: String(line.reason ?? line.message ?? 'refused'),
    status: typeof line.status === 'number' ? line.status : null,
    direction,
    at,
  };
}

/**
 * The refusals of this stack's syncs, both directions, in one `_local` document (it never
 * replicates): the application reads them (`denied()`), fixes or removes the document, then
 * `resolveDenied(id)`. Each is also announced as a `sync:denied` event on the stack.
 */
export class DeniedRecords {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly stack: ClientStack) {}

  record(entry: SyncRefusal): Promise<void> {
    this.stack.emit('sync:denied', entry);
    return this.edit((all) => ({ ...all, [entry.id]: entry }));
  }

  async list(): Promise<SyncRefusal[]> {
    await this.chain;
    const doc = await this.stack.storage.get<{ denied: Record<string, SyncRefusal> }>(DENIED_ID);
    // records made before refusals on pull were kept are the remote's (push)
    return Object.values(doc?.denied ?? {}).map((entry) => ({ ...entry, direction: entry.direction ?? 'push' }));
  }

  /** Forgets the refusal of a document: true when there was one (nothing is written otherwise). */
  async resolve(id: string): Promise<boolean> {
    let held = false;
    await this.edit((all) => {
      held = Object.prototype.hasOwnProperty.call(all, id);
      return held ? Object.fromEntries(Object.entries(all).filter(([key]) => key !== id)) : null;
    });
    return held;
  }

  /** `change` answers the new records, or null to leave the document as it is. */
  private edit(change: (all: Record<string, SyncRefusal>) => Record<string, SyncRefusal> | null): Promise<void> {
    const run = this.chain.then(async () => {
      const doc = await this.stack.storage.get<{ _id: string; _rev: string; denied: Record<string, SyncRefusal> }>(DENIED_ID);
      const next = change(doc?.denied ?? {});
      if (next) await this.stack.storage.put({ _id: DENIED_ID, ...(doc ? { _rev: doc._rev } : {}), denied: next });
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}
