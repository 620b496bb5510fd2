import { Arrivals, INCOMPLETE_ID, type IncompleteTransaction, type PendingTransaction } from './arrivals.js';
import { runTransaction, type TransactionOptions } from './commit.js';
import { txErrorList } from './errors.js';
import { Journal } from './journal.js';
import { recover, type RecoveryReport } from './recovery.js';
import type { Transaction } from './transaction.js';
import { plainStamp, stampOf } from './stamp.js';
import { definePlugin } from '../../index.js';
import { tapWhen } from '../../kit/index.js';

export { DEFAULT_RETRIES, type TransactionOptions } from './commit.js';
export type { Transaction } from './transaction.js';
export type { RecoveryReport } from './recovery.js';
export type { IncompleteTransaction, MissingMember, PendingTransaction } from './arrivals.js';
export type { TxStamp } from './stamp.js';
export { INCOMPLETE_ID };

/** The transactions plugin's API (`getApi(stack, transactionsPlugin)`); `stack.transaction` is its member. */
export interface TransactionsApi {
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** what the recovery on open found and did (nothing to do: `{ released: 0 }`) */
  readonly recovery: RecoveryReport;
  /** Transactions from peers whose members are hidden here until the rest is resolved. */
  pending(): PendingTransaction[];
  /** Transactions shown here without some members (refused here or by the peer pulled from), as `tx:incomplete` announced them. */
  incomplete(): IncompleteTransaction[];
  /** Shows a pending transaction as it is now (listed as incomplete, code DS_TX_RELEASED); false when it is not pending. */
  release(id: string): Promise<boolean>;
}

/** Before every other onOpen tap (the ephemeral purge is -50): no write precedes the recovery. */
const RECOVER_STAGE = -1000;
/** After every plugin that may refuse a peer's document (the node's authorization, ephemeral…). */
const ADMIT_STAGE = 1000;

/**
 * Multi-document transactions (docs/transactions.md): `stack.transaction(async (tx) => …)`,
 * optimistic, journaled for crash recovery, and shown whole on the peers they replicate to.
 */
export const transactionsPlugin = definePlugin({
  name: 'transactions',
  errors: txErrorList,
  setup({ hooks, stack }): TransactionsApi {
    const journal = new Journal(stack);
    const arrivals = new Arrivals(stack);
    const api: { -readonly [K in keyof TransactionsApi]: TransactionsApi[K] } = {
      transaction: (fn, options) => runTransaction(stack, journal, fn, options),
      recovery: { released: 0 },
      pending: () => arrivals.list(),
      incomplete: () => arrivals.incompleteList(),
      release: (id) => arrivals.release(id),
    };
    hooks.onOpen.tapPromise({ name: 'transactions', stage: RECOVER_STAGE }, async () => {
      api.recovery = await recover(stack, journal);
      await arrivals.load();
    });
    hooks.hidden.tap('transactions', (doc) => (arrivals.hides(doc) ? true : undefined));
    hooks.hiddenIds.tap('transactions', (ids, model) => {
      const mine = arrivals.hiddenIds(model.name);
      return mine.length === 0 ? ids : [...ids, ...mine];
    });
    hooks.admit.tapPromise({ name: 'transactions', stage: ADMIT_STAGE }, (item) => arrivals.admit(item));
    hooks.afterWrite.tapPromise(tapWhen('transactions', (_model, origin) => origin === 'replication'), async ([doc], ctx) => {
      if (ctx.origin === 'replication') await arrivals.stored(doc);
    });
    hooks.refused.tapPromise('transactions', (refusals) => arrivals.refused(refusals));
    // stack.sync: members of classes it does not pull are not waited for; what its remote
    // resolved without some members is resolved here once the pull read past that point
    hooks.replicating.tapPromise('transactions', async (step) => {
      if (step.phase === 'start') return arrivals.receives(step.classes);
      const body = (await step.readRemoteLocal(INCOMPLETE_ID)) as { txs?: unknown } | null;
      if (body?.txs && typeof body.txs === 'object') await arrivals.settleFromPeer(body.txs as Record<string, { seq?: unknown; missing?: unknown }>, step.to);
    });
    // a revision written outside the transaction that wrote the stored one is not that
    // transaction's: it keeps only what it owes (so peers count it as an overtaken member). A
    // create has no stored revision: its plan leaves this tap out (and the copy a beforeWrite costs)
    hooks.beforeWrite.tap(tapWhen('transactions', (_model, origin, op) => origin === 'local' && op !== 'create', 500), (doc, ctx) => {
      if (ctx.transaction !== undefined || !ctx.previous || typeof stampOf(doc)?.id !== 'string') return doc;
      const { '~tx': _stamp, ...rest } = doc;
      const stamp = plainStamp(ctx.previous, doc._id);
      return (stamp ? { ...rest, '~tx': stamp } : rest) as typeof doc;
    });
    hooks.onClose.tapPromise('transactions', async () => {
      await arrivals.flushed();
    });
    return api;
  },
  members: (api) => ({ transaction: api.transaction }),
});
