import { createError } from '../../index.js';

/** The error codes of the transactions plugin (docs/errors.md). */
export const TX_ERRORS = {
  conflict: createError('DS_TX_CONFLICT', 'A transaction kept meeting concurrent changes to the documents it read or wrote: it was run again as many times as allowed, and nothing of it is stored.', { status: 409 }),
  closed: createError('DS_TX_CLOSED', 'A transaction object was used after its function returned or threw: keep every use inside the function given to stack.transaction.', { status: 500 }),
  invalid: createError('DS_TX_INVALID', 'stack.transaction needs a function and, optionally, { retries } (a whole number ≥ 0).', { status: 400 }),
  // not thrown: the codes of a transaction's missing members in `incomplete()` and `tx:incomplete`
  memberRefused: createError('DS_TX_MEMBER_REFUSED', 'A member of a transaction was refused by the peer this stack pulls from (the node): the transaction is shown here without it.', { status: 409 }),
  released: createError('DS_TX_RELEASED', 'A transaction whose members had not all arrived was shown as it was by release(id).', { status: 409 }),
};

/** For `definePlugin({ errors })`. */
export const txErrorList = Object.values(TX_ERRORS);
