import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { BUILTIN_CONFLICT_POLICIES, type ConflictPolicy } from '../../contracts/model.js';
import { HANDLER_NAME } from '../../kernel/handler-registry.js';

/**
 * A class's `conflicts` value: a built-in policy or a handler name (the handler rule). Whether a
 * handler of that name is registered is not asked here: a class document travels to peers that
 * may not have it (a node without the app's code leaves such conflicts to a device).
 */
export function checkConflictPolicy(value: unknown): ConflictPolicy {
  if (typeof value === 'string' && (BUILTIN_CONFLICT_POLICIES.includes(value) || HANDLER_NAME.test(value))) return value;
  throw KERNEL_ERRORS.classInvalid(
    `"conflicts" is one of ${BUILTIN_CONFLICT_POLICIES.map((p) => `'${p}'`).join(', ')} or a registered conflict handler's name (got ${JSON.stringify(value)}).`,
    { path: 'conflicts' },
  );
}
