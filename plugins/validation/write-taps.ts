import { checkShape, compileClass, type CompiledClass } from './class-validator.js';
import { checkForeignKeys } from './foreign-keys.js';
import { prepareDraft } from './prepare.js';
import type { TargetCache } from './target-cache.js';
import type { ClassModel, Doc, WriteContext } from '../../index.js';
import type { AttributeTypes } from '../../kit/index.js';

/*
 * The validation plugin's taps on every write (beforeValidate, validate): module functions, the
 * validate tap bound to its stack's target cache, not closures made in setup. V8 keeps a
 * function's optimized code only while some function object of its kind lives: closures made per
 * stack died with their stack, and after a full garbage collection the next stack's were compiled
 * again — on the serial write path, each time a process opens a stack (a node's tenants, a test
 * run, bench rounds; docs/benchmarks.md#code-shared-by-every-stack).
 */

/** beforeValidate: defaults stamped, values normalised (./prepare.ts) */
export function prepareTap(draft: Doc, ctx: WriteContext): Doc {
  return prepareDraft(draft, ctx.classModel, ctx.op);
}

/** validate: the draft's shape against its class, then its foreign keys (`this`: the stack's target cache; read only when not known) */
export function validateTap(this: TargetCache, draft: Doc, ctx: WriteContext, done: (err?: Error | null) => void): void {
  if (ctx.op === 'delete') return done(); // deleting never depends on the document being valid
  let reading: void | Promise<void>;
  try {
    const { stack } = ctx;
    // Node: the last class's validator, and no closure per write (below); the browser files
    // have no bytes for either (types/build-flags.d.ts)
    const validator = globalThis.docstackBrowserBuild ? compileClass(ctx.classModel, stack.attributeTypes) : validatorOf(ctx.classModel, stack.attributeTypes);
    if (!globalThis.docstackBrowserBuild && ctx.origin !== 'replication') {
      shapeDraft = draft;
      shapePrevious = ctx.previous;
      try {
        checkShape(validator, ctx.classModel, draft, ctx.opaque, stack.systemFields, repeatedUnchanged);
      } finally {
        shapeDraft = shapePrevious = undefined;
      }
    } else checkShape(validator, ctx.classModel, draft, ctx.opaque, stack.systemFields, ctx.origin === 'replication' ? always : (field) => sameValue(draft[field], ctx.previous?.[field]));
    reading = checkForeignKeys(draft, ctx, validator.foreignKeys, this);
  } catch (err) {
    return done(err as Error);
  }
  if (!reading) return done();
  reading.then(() => done(), (err: Error) => done(err));
}

const always = (): boolean => true;

/**
 * checkShape's `foreign` for a local write: a field no plugin here owns is kept when the write
 * repeats it unchanged. One function for every write, reading the draft checkShape is checking
 * (set around that synchronous call), not a closure made per write: the validate tap's own work
 * beside its checks — a closure, a keyed lookup of the class's validator — was measured with the
 * checks themselves (bench/serial-ab, docs/benchmarks.md "Validation in a serial create (stop 55)").
 */
let shapeDraft: Doc | undefined;
let shapePrevious: Doc | undefined;
function repeatedUnchanged(field: string): boolean {
  return sameValue(shapeDraft![field], shapePrevious?.[field]);
}

/** compileClass, the last answer kept: a serial writer asks for the same class write after write (the WeakMap lookup left out). */
let lastModel: ClassModel | undefined;
let lastTypes: AttributeTypes | undefined;
let lastValidator: CompiledClass | undefined;
function validatorOf(model: ClassModel, types: AttributeTypes): CompiledClass {
  if (model !== lastModel || types !== lastTypes) {
    lastValidator = compileClass(model, types);
    lastModel = model;
    lastTypes = types;
  }
  return lastValidator!;
}

/** Equal as stored (JSON). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));
}
