import type { WriteContext } from '../contracts/hooks.js';
import type { WriteOptions } from '../kernel/stack.js';

/**
 * The options of a write a plugin makes in reaction to another (an after-trigger, an audit
 * record, a job started by a write): the same session and transaction as the write that led to
 * it, one level deeper — so authorization, transactions and depth limits see it as part of that
 * write. `options` come last but cannot lower the depth.
 */
export function reactionWrite<O extends object = WriteOptions>(ctx: Pick<WriteContext, 'session' | 'transaction' | 'depth'>, options?: O): O & WriteOptions {
  return {
    ...(ctx.session !== undefined ? { session: ctx.session } : {}),
    ...(ctx.transaction !== undefined ? { transaction: ctx.transaction } : {}),
    ...(options as O),
    depth: ctx.depth + 1,
  };
}
