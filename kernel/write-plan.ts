import type { KernelHooks, WriteOrigin } from './hooks.js';
import type { WriteOp } from '../contracts/hooks.js';
import type { ClassModel } from '../contracts/model.js';

/**
 * Which classes, write origins and operations a pipeline tap has work for; a tap without one runs
 * for all. `op` is undefined where a plan serves every operation (a read's afterRead): a `when`
 * that looks at it answers true for undefined.
 */
export type TapWhen = (model: ClassModel, origin: WriteOrigin, op?: WriteOp) => boolean;

/**
 * Tap options for a pipeline hook (beforeValidate, validate, beforeWrite, afterWrite, afterRead)
 * whose tap has work only for some classes: the pipeline's plan for a class leaves it out for
 * the others (`when` must depend on the class model, origin and operation only, not on the document).
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

/** Per class model object: per origin and op (`local`, `localcreate`…), the plan and the hooks' tap count it was made at. */
const plans = new WeakMap<ClassModel, Map<string, { version: number; plan: WritePlan }>>();

/**
 * The write plan of a class revision for an origin and operation, compiled once (per class model
 * object, which the class cache keeps per revision) and again only if plugins tapped meanwhile: a
 * class no plugin has work for runs no hook at all, so its write is one validation and one
 * bulkDocs. Without `op`, the plan of every operation (what reads use for afterRead).
 */
export const planFor: (hooks: KernelHooks, model: ClassModel, origin: WriteOrigin, op?: WriteOp) => WritePlan = globalThis.docstackBrowserBuild ? compiledPlan : lastOrCompiled;

function compiledPlan(hooks: KernelHooks, model: ClassModel, origin: WriteOrigin, op?: WriteOp): WritePlan {
  // taps are only ever added, so their total number changes whenever any planned hook changes
  let version = 0;
  for (const name of PLANNED) version += hooks[name].taps.length;
  let byOrigin = plans.get(model);
  if (!byOrigin) plans.set(model, (byOrigin = new Map()));
  const key = op ? origin + op : origin;
  const known = byOrigin.get(key);
  if (known && known.version === version) return known.plan;
  const plan = {} as Record<Planned, unknown>;
  for (const name of PLANNED) plan[name] = filtered(hooks[name], model, origin, op);
  byOrigin.set(key, { version, plan: plan as WritePlan });
  return plan as WritePlan;
}

/**
 * planFor on Node: the last plan asked, compared in place — a serial writer asks the same one
 * write after write, and compiledPlan's key (`localcreate`) was a string made and hashed per
 * write, its version a keyed read per hook. The browser files have no bytes for it. It keeps the
 * last asker's hooks and class model alive until the next plan is asked (one stack's, at most).
 */
function lastOrCompiled(hooks: KernelHooks, model: ClassModel, origin: WriteOrigin, op?: WriteOp): WritePlan {
  const version = hooks.beforeValidate.taps.length + hooks.validate.taps.length + hooks.beforeWrite.taps.length + hooks.afterWrite.taps.length + hooks.afterRead.taps.length;
  const last = lastAsked;
  if (last.model === model && last.hooks === hooks && last.origin === origin && last.op === op && last.version === version) return last.plan!;
  const plan = compiledPlan(hooks, model, origin, op);
  lastAsked = { hooks, model, origin, op, version, plan };
  return plan;
}

/** lastOrCompiled's last answer */
let lastAsked: { hooks: KernelHooks | null; model: ClassModel | null; origin: WriteOrigin; op: WriteOp | undefined; version: number; plan: WritePlan | null } = {
  hooks: null,
  model: null,
  origin: 'local',
  op: undefined,
  version: -1,
  plan: null,
};

function filtered<H extends object>(hook: H, model: ClassModel, origin: WriteOrigin, op: WriteOp | undefined): H | null {
  const taps = (hook as unknown as { taps: TapRecord[] }).taps;
  const kept = taps.filter((tap) => !tap.when || tap.when(model, origin, op));
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
