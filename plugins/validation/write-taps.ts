import { checkShape, compileClass } from './class-validator.js';
import { checkForeignKeys } from './foreign-keys.js';
import { prepareDraft } from './prepare.js';
import type { TargetCache } from './target-cache.js';
import type { Doc, WriteContext } from '../../index.js';

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
    const validator = compileClass(ctx.classModel, stack.attributeTypes);
    checkShape(validator, ctx.classModel, draft, ctx.opaque, stack.systemFields, ctx.origin === 'replication' ? always : (field) => sameValue(draft[field], ctx.previous?.[field]));
    reading = checkForeignKeys(draft, ctx, validator.foreignKeys, this);
  } catch (err) {
    return done(err as Error);
  }
  if (!reading) return done();
  reading.then(() => done(), (err: Error) => done(err));
}

const always = (): boolean => true;

/** Equal as stored (JSON). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));
}
