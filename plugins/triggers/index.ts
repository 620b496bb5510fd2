import { asValue } from 'awilix';
import { KEYS } from '../../kernel/container.js';
import { DocstackError } from '../../kernel/errors.js';
import { definePlugin } from '../../kernel/plugin.js';
import { triggerErrorList } from './errors.js';
import { ensureFailureClass } from './failures.js';
import { createTriggerCheck } from './model.js';
import { TRIGGER_HANDLERS, TriggerHandlerRegistry } from './registry.js';
import { refuseTooDeep, runAfterTriggers, runBeforeTriggers } from './run.js';

export { TRIGGER_FAILED_EVENT, TRIGGER_FAILURE_CLASS, type TriggerFailedEvent } from './failures.js';
export { parseTrigger, setTriggerEnabled, type TriggerModel } from './model.js';
export {
  registerTriggerHandler,
  triggerHandlers,
  TRIGGER_HANDLERS,
  TriggerHandlerRegistry,
  type TriggerContext,
  type TriggerHandler,
  type TriggerWriteApi,
  type TriggerWriteOptions,
} from './registry.js';

export interface TriggersOptions {
  /** how deep trigger writes may nest (a caller's write is depth 0); default 8 */
  maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 8;

/** First of all beforeValidate taps: a write past the limit runs nothing, not even defaults. */
const DEPTH_STAGE = -1000;
/** After the validation plugin's defaults (-100): before-triggers see complete drafts. */
const BEFORE_TRIGGERS_STAGE = 0;
const AFTER_TRIGGERS_STAGE = 0;
/** After the system patches and the ephemeral purge. */
const ENSURE_STAGE = 10;

function readMaxDepth(options: TriggersOptions | undefined): number {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new DocstackError('DS_STACK_OPTIONS_INVALID', `The triggers plugin's maxDepth must be a whole number ≥ 0 (got ${String(maxDepth)}).`, {
      path: 'maxDepth',
    });
  }
  return maxDepth;
}

/**
 * Triggers: stored in class documents (`classObj.addTrigger`), naming handlers that plugins
 * register per stack. before-triggers change or refuse drafts ahead of validation;
 * after-triggers react once a document is stored, report their failures (a `~TriggerFailure`
 * record and a `trigger:failed` event) and may start a job. See docs/triggers.md.
 */
export const triggersPlugin = definePlugin({
  name: 'triggers',
  requires: ['validation'],
  optional: ['jobs'],
  errors: triggerErrorList,
  setup({ hooks, container, stack }, options: TriggersOptions | undefined) {
    const maxDepth = readMaxDepth(options);
    const registry = new TriggerHandlerRegistry();
    container.register(TRIGGER_HANDLERS, asValue(registry));
    container.register(KEYS.triggerCheck, asValue(createTriggerCheck(stack, registry)));

    hooks.onOpen.tapPromise({ name: 'triggers', stage: ENSURE_STAGE }, ensureFailureClass);
    hooks.beforeValidate.tapPromise({ name: 'triggers', stage: DEPTH_STAGE }, async (draft, ctx) => {
      refuseTooDeep(ctx, maxDepth);
      return draft;
    });
    hooks.beforeValidate.tapPromise({ name: 'triggers', stage: BEFORE_TRIGGERS_STAGE }, (draft, ctx) => runBeforeTriggers(draft, ctx, registry));
    hooks.afterWrite.tapPromise({ name: 'triggers', stage: AFTER_TRIGGERS_STAGE }, ([stored], ctx) => runAfterTriggers(stored, ctx, registry));
  },
});
