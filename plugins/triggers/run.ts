import { reportFailure, TRIGGER_FAILURE_CLASS } from './failures.js';
import { startJob } from './jobs.js';
import type { TriggerModel } from './types.js';
import type { TriggerContext, TriggerHandler, TriggerHandlerRegistry, TriggerWriteApi, TriggerWriteOptions } from './registry.js';
import { KERNEL_ERRORS, type Doc, DocstackError, type WriteContext, type WriteOptions } from '../../index.js';
import { isPlainObject, reactionWrite } from '../../kit/index.js';
import { TRIGGER_ERRORS } from './errors.js';

/** Fields the engine owns: a before-trigger may change attributes, never these. */
const ENGINE_FIELDS = ['_id', '_rev', '~class', '~createTimestamp', '~updateTimestamp', 'active'] as const;

/** The enabled triggers of the write's class for this moment and operation: by order, then name. */
function triggersFor(ctx: WriteContext, when: TriggerModel['when']): TriggerModel[] {
  const all = ctx.classModel.triggers as TriggerModel[];
  // the usual case on the hot path: a class without triggers costs one length check
  if (all.length === 0) return [];
  // Replicated writes ran their triggers on the peer that made them, and what those triggers
  // wrote replicates too; patches are applied alike on every peer: running triggers again
  // would double their effects. Failure records never run triggers (they would report themselves).
  if (ctx.origin === 'replication' || ctx.origin === 'patch' || ctx.classModel.name === TRIGGER_FAILURE_CLASS) return [];
  return all
    .filter((t) => t.enabled !== false && t.when === when && Array.isArray(t.on) && t.on.includes(ctx.op))
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Refuses a write nested deeper than the limit, before anything of it runs. */
export function refuseTooDeep(ctx: WriteContext, maxDepth: number): void {
  if (ctx.depth <= maxDepth) return;
  throw TRIGGER_ERRORS.triggerDepth(
    `This ${ctx.op} of a "${ctx.classModel.name}" document is nested ${ctx.depth} writes deep in trigger writes, past the limit of ${maxDepth} ` +
      '(the maxDepth option of the triggers plugin); a trigger probably writes documents that start it again.',
    { details: { depth: ctx.depth, maxDepth, className: ctx.classModel.name } },
  );
}

function writeApi(ctx: WriteContext): TriggerWriteApi {
  // a trigger's writes belong to the same session and transaction as the write that started it
  const nested = <O extends TriggerWriteOptions>(options?: O): O & WriteOptions => reactionWrite(ctx, options);
  const { stack } = ctx;
  return {
    createDoc: (doc, options) => stack.createDoc(doc, nested(options)),
    updateDoc: (id, changes, options) => stack.updateDoc(id, changes, nested(options)),
    deleteDocument: (id, options) => stack.deleteDocument(id, nested(options)),
  };
}

function contextFor(trigger: TriggerModel, ctx: WriteContext): TriggerContext {
  // a copy: the model belongs to the cached class document every later write reads
  const copy = structuredClone(trigger);
  return {
    trigger: copy,
    params: copy.params ?? {},
    op: ctx.op,
    ...(ctx.previous ? { previous: ctx.previous } : {}),
    stack: ctx.stack,
    classModel: ctx.classModel,
    origin: ctx.origin,
    depth: ctx.depth,
    dryRun: ctx.dryRun,
    write: writeApi(ctx),
  };
}

/** The handler's own copy; a value that cannot be copied cannot be stored either. */
function copyOf(doc: Doc): Doc {
  try {
    return structuredClone(doc);
  } catch {
    throw KERNEL_ERRORS.docInvalid(`The document "${doc._id}" holds a value that is not JSON (a function, a class instance…).`, {
      details: { id: doc._id },
    });
  }
}

/** The trigger's handler, or DS_HANDLER_UNKNOWN (its plugin is not loaded on this stack). */
function handlerOf(trigger: TriggerModel, registry: TriggerHandlerRegistry): TriggerHandler {
  return registry.require(trigger.handler, { subject: `The trigger "${trigger.name}"`, details: { trigger: trigger.name } });
}

function refusal(trigger: TriggerModel, ctx: WriteContext, err: unknown): DocstackError {
  const message = err instanceof Error ? err.message : String(err);
  const path = (err as { path?: unknown } | null)?.path;
  return TRIGGER_ERRORS.triggerRefused(`The trigger "${trigger.name}" refused the ${ctx.op} of a "${ctx.classModel.name}" document: ${message}`, {
    ...(typeof path === 'string' ? { path } : {}),
    details: { trigger: trigger.name, className: ctx.classModel.name },
    cause: err,
  });
}

function checkResult(trigger: TriggerModel, before: Doc, result: unknown): Doc {
  if (!isPlainObject(result)) {
    throw TRIGGER_ERRORS.triggerRefused(`The trigger "${trigger.name}" returned ${Array.isArray(result) ? 'a list' : result === null ? 'null' : typeof result}, not a document.`, {
      details: { trigger: trigger.name },
    });
  }
  for (const field of ENGINE_FIELDS) {
    if (result[field] !== before[field]) {
      throw KERNEL_ERRORS.docProtectedField(
        `The trigger "${trigger.name}" changed "${field}", which the engine sets; return the whole document with its system fields as given.`,
        { path: field, details: { trigger: trigger.name } },
      );
    }
  }
  return result as Doc;
}

/**
 * beforeValidate: runs the before-triggers in order, each on the previous one's result. A
 * throw refuses the write (nothing of the call is stored); what they return is validated next.
 * A before-trigger whose handler is gone refuses the write: it may be a guard, never skip it.
 */
export async function runBeforeTriggers(draft: Doc, ctx: WriteContext, registry: TriggerHandlerRegistry): Promise<Doc> {
  let current = draft;
  for (const trigger of triggersFor(ctx, 'before')) {
    const handler = handlerOf(trigger, registry);
    const given = copyOf(current);
    let result: unknown;
    try {
      result = await handler(given, contextFor(trigger, ctx));
    } catch (err) {
      throw refusal(trigger, ctx, err);
    }
    // a delete stores the previous document deactivated: a trigger may refuse it, not change it
    if (ctx.op === 'delete') continue;
    current = checkResult(trigger, current, result === undefined ? given : result);
  }
  return current;
}

/**
 * afterWrite: runs the after-triggers in order once the document is stored. A failure is
 * reported (record + event), does not undo the write, and does not stop the next trigger.
 */
export async function runAfterTriggers(stored: Doc, ctx: WriteContext, registry: TriggerHandlerRegistry): Promise<void> {
  const triggers = triggersFor(ctx, 'after');
  if (triggers.length === 0) return;
  // the validated plaintext (the stored form may be ciphertext), at its new revision
  const doc = { ...ctx.batch.drafts[ctx.index], _rev: stored._rev } as Doc;
  const report = (trigger: TriggerModel) => (err: unknown) => reportFailure(ctx.stack, trigger.name, doc._id, ctx, err);
  for (const trigger of triggers) {
    try {
      if (trigger.job !== undefined) {
        startJob(ctx.stack, trigger as TriggerModel & { job: string }, doc._id, ctx, report(trigger));
        continue;
      }
      const handler = handlerOf(trigger, registry);
      await handler(copyOf(doc), contextFor(trigger, ctx));
    } catch (err) {
      await report(trigger)(err);
    }
  }
}
