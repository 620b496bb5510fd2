import type { KernelHooks, WriteOrigin } from './hooks.js';
import type { ClassModel } from '../contracts/model.js';

/** Which classes (and write origins) a pipeline tap has work for; a tap without one runs for all. */
export type TapWhen = (model: ClassModel, origin: WriteOrigin) => boolean;

/**
 * Tap options for a pipeline hook (beforeValidate, validate, beforeWrite, afterWrite, afterRead)
 * whose tap has work only for some classes: the pipeline's plan for a class leaves it out for
 * the others (`when` must depend on the class model and origin only, not on the document).
 */
export function tapWhen(name: string, when: TapWhen, stage?: number): { name: string; stage?: number } {
  return { name, ...(stage !== undefined ? { stage } : {}), when } as { name: string; stage?: number };
}

type Planned = 'beforeValidate' | 'validate' | 'beforeWrite' | 'afterWrite' | 'afterRead';
const PLANNED: readonly Planned[] = ['beforeValidate', 'validate', 'beforeWrite', 'afterWrite', 'afterRead'];

/** Each pipeline hook as a class's writes run it: only the taps with work for it, null when none. */
export type WritePlan = { [K in Planned]: KernelHooks[K] | null };

interface TapRecord {
  type: 'sync' | 'async' | 'promise';
  fn: (...args: never[]) => unknown;
  name: string;
  when?: TapWhen;
  [option: string]: unknown;
}

const plans = new WeakMap<ClassModel, Map<WriteOrigin, { version: number; plan: WritePlan }>>();

/**
 * The write plan of a class revision for an origin, compiled once (per class model object, which
 * the class cache keeps per revision) and again only if plugins tapped meanwhile: a class no
 * plugin has work for runs no hook at all, so its write is one validation and one bulkDocs.
 */
export function planFor(hooks: KernelHooks, model: ClassModel, origin: WriteOrigin): WritePlan {
  // taps are only ever added, so their total number changes whenever any planned hook changes
  let version = 0;
  for (const name of PLANNED) version += hooks[name].taps.length;
  let byOrigin = plans.get(model);
  if (!byOrigin) plans.set(model, (byOrigin = new Map()));
  const known = byOrigin.get(origin);
  if (known && known.version === version) return known.plan;
  const plan = {} as Record<Planned, unknown>;
  for (const name of PLANNED) plan[name] = filtered(hooks[name], model, origin);
  byOrigin.set(origin, { version, plan: plan as WritePlan });
  return plan as WritePlan;
}

function filtered<H extends object>(hook: H, model: ClassModel, origin: WriteOrigin): H | null {
  const taps = (hook as unknown as { taps: TapRecord[] }).taps;
  const kept = taps.filter((tap) => !tap.when || tap.when(model, origin));
  if (kept.length === 0 && (hook as { interceptors?: unknown[] }).interceptors?.length === 0) return null;
  if (kept.length === taps.length || (hook as { interceptors?: unknown[] }).interceptors?.length) return hook;
  const copy = new (hook.constructor as new (args: string[]) => H)([...((hook as unknown as { _args: string[] })._args ?? [])]);
  const target = copy as unknown as Record<'tap' | 'tapAsync' | 'tapPromise', (options: object, fn: unknown) => void>;
  for (const { type, fn, ...options } of kept) {
    if (type === 'promise') target.tapPromise(options, fn);
    else if (type === 'async') target.tapAsync(options, fn);
    else target.tap(options, fn);
  }
  return copy;
}
