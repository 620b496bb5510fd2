import type { UnitOfWork, WritePart, WriteShare } from '../../contracts/unit-of-work.js';
import type { ClassNamesIndex } from '../indexes/class-names.js';

/**
 * Keeps the class-name index moving with the pipeline's writes, so it never reads them back
 * (engine/indexes/class-names.ts): once a write stored all of its documents, the index takes its
 * class documents as they are and counts the rest. No storage call of its own per write: the
 * update sequence is read, and the checkpoint stored, every PERSIST_EVERY written documents.
 */
export function classNamesPart(index: ClassNamesIndex): WritePart {
  // bound functions, not closures per stack or write: they run on every write (docs/benchmarks.md#code-shared-by-every-stack)
  return { name: 'class-names', begin: beginNames.bind(index) };
}

function beginNames(this: ClassNamesIndex, work: UnitOfWork): WriteShare | undefined {
  return work.dryRun ? undefined : { done: namesWritten.bind(this, work) };
}

function namesWritten(this: ClassNamesIndex, work: UnitOfWork): void | Promise<void> {
  return this.written(work.items.map((item) => item.doc));
}
