import { pullSelector, pushFilter, type SyncScope } from './filter.js';
import type { SyncOptions } from './options.js';
import type { IngestResult, WriteSession } from '../../index.js';

/**
 * What a stack's syncs keep to themselves and how they authorize what they pull. A server
 * node sets it (server/replication/own-sync.ts) through `usePolicy`: this plugin knows nothing
 * of users or private classes, the node does.
 */
export interface SyncPolicy {
  /** ids that never leave this stack by any sync (a node: its server-private classes) */
  keepsLocal?(id: string): boolean;
  /**
   * The `session` every `stack.ingest` of what a sync pulls is given, for the `admit` taps to
   * authorize the remote as they authorize a peer's push. Throws (a DocstackError) to refuse
   * the sync; `options.pullAs` names the local user the remote acts as.
   */
  pullSession?(options: SyncOptions): WriteSession | undefined | Promise<WriteSession | undefined>;
  /** Every ingest answer of what a sync pulled, once stored (a node gives back quota shares of refused documents). */
  pulled?(results: IngestResult[]): void | Promise<void>;
}

type PushDoc = { _id: string; _deleted?: boolean } & Record<string, unknown>;

/**
 * The push side of a sync: the filter (ephemeral classes, the scope, what the policy keeps
 * local) with its `query_params`, and the same decision by id for counting pending changes.
 * PouchDB names the push checkpoint after the filter's text: a stack without `keepsLocal`
 * keeps the filter (and so the checkpoints) it always had.
 */
export function pushOptions(ephemeral: ReadonlySet<string>, scope: SyncScope | null, policy: SyncPolicy) {
  const base = pushFilter(ephemeral, scope);
  const keepsLocal = policy.keepsLocal;
  const filter = keepsLocal
    ? function docstackKeepsLocalPushFilter(doc: PushDoc): boolean {
        return !keepsLocal(doc._id) && base(doc);
      }
    : base;
  return {
    // the scope in query_params names the checkpoint
    options: { filter, query_params: scope ?? { ephemeral: 'excluded' } },
    // by id only (as for a tombstone: `<Class>-…`), for the pending count
    travels: (id: string) => filter({ _id: id, _deleted: true }),
    pullSelector: scope ? pullSelector(scope) : null,
  };
}
