import { parseSchedule } from './cron.js';
import type { JobHandlerRegistry } from './handlers.js';
import { JOB_PLATFORMS, type JobModel, type JobPlatform } from './types.js';
import { type ClientStack, DocstackError } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { JOB_ERRORS } from './errors.js';

/**
 * Job names are the primary key of `~Job` and part of run-record ids and lock ids, so they
 * hold no `~` (the separator of run ids) and no `/`.
 */
export const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

export const DEFAULT_BACKOFF_MS = 1000;
export const MAX_RETRIES = 100;
/** setTimeout's limit: a larger delay fires at once. */
export const MAX_DELAY_MS = 2_147_483_647;

const KEYS = ['name', 'handler', 'schedule', 'params', 'singleton', 'enabled', 'platform', 'timeout', 'retries', 'backoffMs', 'description'] as const;

function invalid(message: string, path: string): never {
  throw JOB_ERRORS.jobInvalid(message, { path });
}

function wholeNumber(value: unknown, path: string, least: number, most: number): number {
  if (!Number.isInteger(value) || (value as number) < least || (value as number) > most) {
    invalid(`"${path}" must be a whole number from ${least} to ${most} (got ${JSON.stringify(value)}).`, path);
  }
  return value as number;
}

function flag(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') invalid(`"${path}" must be true or false.`, path);
  return value;
}

export function checkJobName(name: unknown): string {
  if (typeof name !== 'string' || !JOB_NAME.test(name)) {
    invalid(`A job name starts with a letter or digit and holds letters, digits and "_ . : -", at most 100 (got ${JSON.stringify(name)}).`, 'name');
  }
  return name;
}

/**
 * Checks a job model and returns it with its defaults, as it will be stored. Every refusal is
 * DS_JOB_INVALID with the field as path, except a handler no plugin registered
 * (DS_HANDLER_UNKNOWN). `undefined` and `null` both mean "not set".
 */
export async function normalizeJob(input: unknown, handlers: JobHandlerRegistry, stack: ClientStack): Promise<JobModel> {
  if (!isPlainObject(input)) invalid('A job model is an object such as { name, handler, schedule }.', '');
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null));
  const unknown = Object.keys(given).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) invalid(`A job has no field ${unknown.map((k) => `"${k}"`).join(', ')}; use ${KEYS.join(', ')}.`, unknown[0]);

  const name = checkJobName(given.name);
  if (typeof given.handler !== 'string' || given.handler === '') invalid('A job needs a "handler": the name of a registered job handler.', 'handler');
  handlers.require(given.handler, { path: 'handler' });
  const params = given.params ?? {};
  if (!isPlainObject(params)) invalid('"params" must be an object.', 'params');
  const platform = (given.platform ?? 'any') as JobPlatform;
  if (!JOB_PLATFORMS.includes(platform)) invalid(`"platform" is one of ${JOB_PLATFORMS.join(', ')} (got ${JSON.stringify(platform)}).`, 'platform');

  const model: JobModel = {
    name,
    handler: given.handler,
    params: structuredClone(params),
    singleton: flag(given.singleton, 'singleton', false),
    enabled: flag(given.enabled, 'enabled', true),
    platform,
    retries: given.retries === undefined ? 0 : wholeNumber(given.retries, 'retries', 0, MAX_RETRIES),
    backoffMs: given.backoffMs === undefined ? DEFAULT_BACKOFF_MS : wholeNumber(given.backoffMs, 'backoffMs', 0, MAX_DELAY_MS),
  };
  if (given.schedule !== undefined) {
    parseSchedule(given.schedule);
    model.schedule = given.schedule as string;
  }
  if (given.timeout !== undefined) model.timeout = wholeNumber(given.timeout, 'timeout', 1, MAX_DELAY_MS);
  if (given.description !== undefined) {
    if (typeof given.description !== 'string') invalid('"description" must be a string.', 'description');
    model.description = given.description;
  }
  await checkParams(handlers.options(given.handler)?.checkParams, model.params, 'define', stack);
  return model;
}

/** Runs a handler's params check; a plain Error becomes DS_JOB_INVALID on `params`. */
export async function checkParams(
  check: ((params: Record<string, unknown>, phase: 'define' | 'run', stack: ClientStack) => void | Promise<void>) | undefined,
  params: Record<string, unknown>,
  phase: 'define' | 'run',
  stack: ClientStack,
): Promise<void> {
  if (!check) return;
  try {
    await check(params, phase, stack);
  } catch (err) {
    if (err instanceof DocstackError) throw err;
    throw JOB_ERRORS.jobInvalid(`The job params are refused: ${err instanceof Error ? err.message : String(err)}`, { path: 'params', cause: err });
  }
}
