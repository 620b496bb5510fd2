import { Class, type ClientStack, type WriteContext } from '../../index.js';
import { nowIso } from '../../kit/index.js';

/** The system class of failure records: one document per failed after-trigger. */
export const TRIGGER_FAILURE_CLASS = '~TriggerFailure';
/** The stack event emitted for every failed after-trigger. */
export const TRIGGER_FAILED_EVENT = 'trigger:failed';

/** Payload of `trigger:failed`. */
export interface TriggerFailedEvent {
  trigger: string;
  className: string;
  docId: string;
  op: WriteContext['op'];
  /** the handler's error message */
  error: string;
  /** the error's code, when it had one (a DocstackError) */
  code?: string;
  /** the `~TriggerFailure` document recording it, or null when it could not be written */
  failureId: string | null;
  /** why the record could not be written (only when failureId is null) */
  recordError?: string;
}

/** Long enough for a stack trace's first lines, short enough not to bloat the store. */
const MAX_ERROR_LENGTH = 2000;

const failureSchema = {
  trigger: { type: 'string', mandatory: true, description: 'name of the trigger that failed' },
  className: { type: 'string', mandatory: true, description: 'class of the written document' },
  docId: { type: 'string', mandatory: true, description: 'the written document (it stays stored)' },
  op: { type: 'enum', values: ['create', 'update', 'delete'], mandatory: true },
  error: { type: 'string', mandatory: true, description: 'the error message' },
  code: { type: 'string', description: 'the error code, when it had one' },
  at: { type: 'date', format: 'date-time', mandatory: true },
};

export async function ensureFailureClass(stack: ClientStack): Promise<void> {
  await Class.ensure(stack, TRIGGER_FAILURE_CLASS, 'After-triggers that failed (the write that started them stays stored).', failureSchema);
}

function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH)}…` : message;
}

/**
 * Reports a failed after-trigger: a `~TriggerFailure` record, then the `trigger:failed` event
 * (so a listener can read the record). Never throws: the write that started the trigger is
 * stored and its caller must not see the trigger's problem, nor a problem recording it.
 */
export async function reportFailure(stack: ClientStack, trigger: string, docId: string, ctx: WriteContext, err: unknown): Promise<void> {
  const rawCode = (err as { code?: unknown } | null)?.code;
  const fields = {
    trigger,
    className: ctx.classModel.name,
    docId,
    op: ctx.op,
    error: messageOf(err),
    ...(typeof rawCode === 'string' ? { code: rawCode } : {}),
  };
  const event: TriggerFailedEvent = { ...fields, failureId: null };
  try {
    // at the depth of the failed write (not +1): a depth refusal at the limit must still be recordable
    const record = await stack.createDoc({ '~class': TRIGGER_FAILURE_CLASS, ...fields, at: nowIso(stack.clock) }, { origin: 'system', depth: ctx.depth });
    event.failureId = record._id;
  } catch (recordErr) {
    event.recordError = messageOf(recordErr);
  }
  try {
    stack.emit(TRIGGER_FAILED_EVENT, event);
  } catch {
    // a throwing listener is the listener's bug; it must not fail the write that was stored
  }
}
