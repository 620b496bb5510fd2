import { definePlugin } from '../../kernel/plugin.js';
import { tapWhen } from '../../kernel/write-plan.js';
import { Arrivals } from './arrivals.js';
import { runTransaction, type TransactionOptions } from './commit.js';
import { txErrorList } from './errors.js';
import { Journal } from './journal.js';
import { recover, type RecoveryReport } from './recovery.js';
import type { Transaction } from './transaction.js';

export { DEFAULT_RETRIES, type TransactionOptions } from './commit.js';
export type { Transaction } from './transaction.js';
export type { RecoveryReport } from './recovery.js';

/** The transactions plugin's API (`getApi(stack, transactionsPlugin)`); `stack.transaction` is its member. */
export interface TransactionsApi {
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** what the recovery on open found and did (nothing to do: `{ released: 0 }`) */
  readonly recovery: RecoveryReport;
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
    };
    hooks.onOpen.tapPromise({ name: 'transactions', stage: RECOVER_STAGE }, async () => {
      api.recovery = await recover(stack, journal);
      await arrivals.load();
    });
    hooks.hidden.tap('transactions', (doc) => (arrivals.hides(doc) ? true : undefined));
    hooks.admit.tapPromise({ name: 'transactions', stage: ADMIT_STAGE }, (item) => arrivals.admit(item));
    hooks.afterWrite.tapPromise(tapWhen('transactions', (_model, origin) => origin === 'replication'), async ([doc], ctx) => {
      if (ctx.origin === 'replication') await arrivals.stored(doc);
    });
    return api;
  },
  members: (api) => ({ transaction: api.transaction }),
});
