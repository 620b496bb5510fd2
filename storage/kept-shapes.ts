/**
 * Hidden classes the write path keeps alive (Node only: the browser files never load this).
 *
 * V8 holds the hidden class ("map") of an object whose fields were added one at a time — a class
 * instance's fields, a draft's attributes, a document copied key by key — only through the
 * objects that have it. A full garbage collection that runs while no such object is alive
 * (between two serial writes, in Node's idle-time collections, between one stack closing and
 * the next opening) drops the map, and V8 throws away the optimized code of every function that
 * checked it ("weak objects" in --trace-deopt: 20-odd functions of a create). The writes after
 * it run unoptimized until V8 compiles them again. With a full collection forced before each
 * 1,000 serial creates on a fresh stack, a create cost 1.5–1.6× a `put` instead of 1.2–1.3×
 * (docs/benchmarks.md, "Shapes kept alive"). One object of each kind, kept here, keeps its map.
 */

/** Objects made once, at load, that hold no caller's data: kept for the process's life. */
const exemplars: object[] = [];

/** Keeps `exemplar` — an object of a kind the write path makes per write — alive for good. */
export function keepShape(exemplar: object): void {
  exemplars.push(exemplar);
}

/**
 * The last small write's drafts and storage copies (their maps are the caller's classes', so no
 * exemplar can be made ahead): each write replaces the one before, so at most a few documents
 * are held, and nothing of a stack (a closed stack is not kept alive by them).
 */
export const lastKept: { drafts: object | undefined; copies: object | undefined } = { drafts: undefined, copies: undefined };

/** Writes of at most this many documents leave their drafts and copies in lastKept (a serial writer's). */
export const KEEP_AT_MOST = 4;

/** Lets go of every kept object (tests: the deoptimizations this module prevents come back). */
export function forgetKeptShapes(): void {
  exemplars.length = 0;
  lastKept.drafts = lastKept.copies = undefined;
}
