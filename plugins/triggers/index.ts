import { asValue } from 'awilix';
import { triggerErrorList, TRIGGER_ERRORS } from './errors.js';
import { ensureFailureClass } from './failures.js';
import { createTriggerCheck, type TriggerCheck, type TriggerModel } from './model.js';
import { TRIGGER_HANDLERS, TriggerHandlerRegistry } from './registry.js';
import { refuseTooDeep, runAfterTriggers, runBeforeTriggers } from './run.js';
import { KERNEL_ERRORS, type Class, type ClassModel, definePlugin, type Doc, getApi, type WriteContext } from '../../index.js';
import { tapWhen } from '../../kit/index.js';

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
    throw KERNEL_ERRORS.stackOptionsInvalid(`The triggers plugin's maxDepth must be a whole number ≥ 0 (got ${String(maxDepth)}).`, {
      path: 'maxDepth',
    });
  }
  return maxDepth;
}

/**
 * Triggers: stored in class documents (`addTrigger(classObj, model)`), naming handlers that plugins
 * register per stack. before-triggers change or refuse drafts ahead of validation;
 * after-triggers react once a document is stored, report their failures (a `~TriggerFailure`
 * record and a `trigger:failed` event) and may start a job. See docs/triggers.md.
 */
export const triggersPlugin = definePlugin({
  name: 'triggers',
  requires: ['validation'],
  optional: ['jobs'],
  errors: triggerErrorList,
  setup({ hooks, container, stack }, options: TriggersOptions | undefined): TriggersApi {
    const maxDepth = readMaxDepth(options);
    const registry = new TriggerHandlerRegistry();
    container.register(TRIGGER_HANDLERS, asValue(registry));

    hooks.onOpen.tapPromise({ name: 'triggers', stage: ENSURE_STAGE }, ensureFailureClass);
    // synchronous: no promise per write for a check without I/O
    // bound, not a closure per stack: it runs on every write (docs/benchmarks.md#code-shared-by-every-stack)
    hooks.beforeValidate.tap({ name: 'triggers', stage: DEPTH_STAGE }, checkDepth.bind(null, maxDepth));
    // triggers live in the class model: the write plan of a class without any leaves these taps out
    const triggered = (model: ClassModel) => Array.isArray(model.triggers) && model.triggers.length > 0;
    hooks.beforeValidate.tapPromise(tapWhen('triggers', triggered, BEFORE_TRIGGERS_STAGE), (draft, ctx) => runBeforeTriggers(draft, ctx, registry));
    hooks.afterWrite.tapPromise(tapWhen('triggers', triggered, AFTER_TRIGGERS_STAGE), ([stored], ctx) => runAfterTriggers(stored, ctx, registry));
    return { checkTrigger: createTriggerCheck(stack, registry), handlers: registry };
  },
});

/** The triggers plugin's API (`getApi(stack, triggersPlugin)`). */
export interface TriggersApi {
  /** refuses a trigger model for a class (shape, handler, job) or returns it normalised */
  checkTrigger: TriggerCheck;
  handlers: TriggerHandlerRegistry;
}

function triggersOf(cls: Class): TriggersApi {
  const api = getApi(cls.stack, triggersPlugin);
  if (!api) throw TRIGGER_ERRORS.triggerUnavailable('This stack does not load the triggers plugin, so it cannot run triggers.');
  return api;
}

/**
 * Stores a trigger model in the class document's `triggers` (checked first: shape, a registered
 * handler or a known job). The trigger model lives in the class document; the triggers plugin
 * owns checking and running it — the kernel's Class knows nothing of triggers.
 */
export async function addTrigger(cls: Class, trigger: Record<string, unknown>): Promise<TriggerModel> {
  const normalized = await triggersOf(cls).checkTrigger(cls.model, trigger);
  await cls.saveModel((model) => {
    const taken = (model.triggers as { name?: string }[]).some((t) => t.name === normalized.name);
    if (taken) throw TRIGGER_ERRORS.triggerExists(`"${model.name}" already has a trigger named "${String(normalized.name)}".`, { path: 'name' });
    model.triggers = [...model.triggers, normalized];
    return model;
  });
  return normalized;
}

/** Removes a stored trigger by name (DS_TRIGGER_NOT_FOUND when the class has none of that name). */
export async function removeTrigger(cls: Class, name: string): Promise<void> {
  await cls.saveModel((model) => {
    const kept = (model.triggers as { name?: string }[]).filter((t) => t.name !== name);
    if (kept.length === model.triggers.length) throw TRIGGER_ERRORS.triggerNotFound(`"${model.name}" has no trigger named "${name}".`, { path: 'name' });
    model.triggers = kept;
    return model;
  });
}

/** The depth tap: a write made in reaction to others (after-triggers) past the limit is refused. */
function checkDepth(maxDepth: number, draft: Doc, ctx: WriteContext): Doc {
  refuseTooDeep(ctx, maxDepth);
  return draft;
}
