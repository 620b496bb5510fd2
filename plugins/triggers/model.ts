import * as z from 'zod/mini';
import { TRIGGER_FAILURE_CLASS } from './failures.js';
import { requireJob } from './jobs.js';
import type { TriggerHandlerRegistry } from './registry.js';
import type { TriggerModel } from './types.js';
import { type Class, type ClassModel, type ClientStack, type WriteOp } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { TRIGGER_ERRORS } from './errors.js';

export type { TriggerModel } from './types.js';

/** Checks a trigger model for a class and returns it normalised. */
export type TriggerCheck = (classModel: ClassModel, trigger: Record<string, unknown>) => Promise<TriggerModel>;

const TRIGGER_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const OPS = ['create', 'update', 'delete'] as const;

function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return isPlainObject(value) && Object.values(value).every(isJson);
}

const triggerSchema = z
  .strictObject({
    name: z.string('is required (a string)').check(z.regex(TRIGGER_NAME, 'must start with a letter and hold letters, digits, "_", "." or "-" (64 at most)')),
    description: z.optional(z.string('must be a string')),
    when: z.enum(['before', 'after'], 'must be "before" or "after"'),
    on: z
      .array(z.enum(OPS, 'must be "create", "update" or "delete"'), 'must be a list of operations')
      .check(
        z.minLength(1, 'must name at least one operation'),
        z.refine((ops: string[]) => new Set(ops).size === ops.length, 'must not name an operation twice'),
      ),
    handler: z.optional(z.string('must be a handler name').check(z.minLength(1, 'must be a handler name'))),
    job: z.optional(z.string('must be a job name').check(z.minLength(1, 'must be a job name'))),
    params: z.optional(z.custom<Record<string, unknown>>((v) => isPlainObject(v) && isJson(v), 'must be a plain JSON object')),
    order: z.optional(z.int('must be a whole number')),
    enabled: z.optional(z.boolean('must be true or false')),
  })
  .check(
    z.superRefine((t, ctx) => {
      if (t.handler === undefined && t.job === undefined) {
        ctx.addIssue({ code: 'custom', path: ['handler'], message: 'is missing: a trigger names a handler (or a job)' });
      } else if (t.handler !== undefined && t.job !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['job'], message: 'cannot be given with "handler": a trigger names one or the other' });
      } else if (t.job !== undefined && t.when !== 'after') {
        // a job runs apart from the write, after the fact: it cannot change or refuse it
        ctx.addIssue({ code: 'custom', path: ['job'], message: 'is only for "after" triggers: a job cannot change or refuse a write' });
      }
    }),
  );

function pathOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return issue.keys[0];
  return issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');
}

/** The trigger model checked and normalised; DS_TRIGGER_INVALID with the path of the first problem. */
export function parseTrigger(input: unknown): TriggerModel {
  if (!isPlainObject(input)) throw TRIGGER_ERRORS.triggerInvalid('A trigger model must be a plain object.');
  const parsed = triggerSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = pathOf(issue);
    const label = typeof input.name === 'string' ? `The trigger "${input.name}"` : 'The trigger model';
    const message =
      issue.code === 'unrecognized_keys' ? `${label} has no field "${path}".` : path ? `${label}: "${path}" ${issue.message}.` : `${label}: ${issue.message}.`;
    throw TRIGGER_ERRORS.triggerInvalid(message, { ...(path ? { path } : {}), details: { trigger: input.name } });
  }
  const t = parsed.data;
  return {
    name: t.name,
    description: t.description ?? '',
    when: t.when,
    on: [...t.on],
    ...(t.handler !== undefined ? { handler: t.handler } : { job: t.job }),
    params: structuredClone(t.params ?? {}),
    order: t.order ?? 0,
    enabled: t.enabled ?? true,
  };
}

/** The check addTrigger runs (part of the triggers plugin's API). */
export function createTriggerCheck(stack: ClientStack, registry: TriggerHandlerRegistry): TriggerCheck {
  return async (classModel: ClassModel, input: Record<string, unknown>) => {
    if (classModel.simple) {
      throw TRIGGER_ERRORS.triggerInvalid(`"${classModel.name}" is a simple class: its documents are stored as given, without triggers.`, {
        details: { className: classModel.name },
      });
    }
    if (classModel.name === TRIGGER_FAILURE_CLASS) {
      // a failing trigger on the failure records would report itself forever
      throw TRIGGER_ERRORS.triggerInvalid(`"${TRIGGER_FAILURE_CLASS}" records trigger failures and cannot have triggers of its own.`, {
        details: { className: classModel.name },
      });
    }
    const trigger = parseTrigger(input);
    if (trigger.handler !== undefined) {
      registry.require(trigger.handler, { path: 'handler', subject: `The trigger "${trigger.name}"`, details: { trigger: trigger.name } });
    }
    if (trigger.job !== undefined) await requireJob(stack, trigger.name, trigger.job);
    return trigger;
  };
}

/** Switches a stored trigger on or off without removing it; it takes effect with the next write. */
export async function setTriggerEnabled(cls: Class, name: string, enabled: boolean): Promise<void> {
  if (typeof enabled !== 'boolean') throw TRIGGER_ERRORS.triggerInvalid('"enabled" must be true or false.', { path: 'enabled' });
  await cls.saveModel((model) => {
    const triggers = model.triggers as TriggerModel[];
    if (!triggers.some((t) => t.name === name)) {
      throw TRIGGER_ERRORS.triggerNotFound(`"${model.name}" has no trigger named "${name}".`, { path: 'name' });
    }
    model.triggers = triggers.map((t) => (t.name === name ? { ...t, enabled } : t));
    return model;
  });
}
