import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { UnitOfWork, WritePart, WriteShare } from '../../contracts/unit-of-work.js';
import type { ClassModel } from '../../contracts/model.js';
import { editOutsideIds } from '../../storage/class-ids.js';
import type { Database } from '../../storage/database.js';

/**
 * An id outside its class's range may not lie in another class's: `<Other>-…`, where `<Other>`
 * (the id up to its first `-`, class names have none) is a stored class — that class's scans
 * would read it, its counter would not count it. DS_DOC_ID_OTHER_CLASS. The kernel's
 * checkDocId has refused the system ids already.
 */
export async function refuseOtherClassId(id: string, className: string, classOf: (name: string) => Promise<ClassModel | null>): Promise<void> {
  const head = id.slice(0, id.indexOf('-'));
  if (head !== className && (await classOf(head))) {
    throw KERNEL_ERRORS.docIdOtherClass(`${JSON.stringify(id)} lies in the id range of the class ${head}.`, { path: '_id', details: { id, rangeOf: head } });
  }
}

/**
 * The unit-of-work part that lists a class's out-of-range ids (storage/class-ids.ts): a write
 * creating documents whose id a caller chose outside `<Class>-…` has them checked
 * (refuseOtherClassId) and listed, ahead of the documents, in a storage call of its own inside
 * the write lock (a dry run, stack.checkRequests, checks neither: ingest checks in requestFor). Any other write (every id in its class's range: the common path) gets no
 * share: no read, no storage call.
 */
export function classIdsPart(db: Database, classOf: (name: string) => Promise<ClassModel | null>): WritePart {
  // bound, not a closure per stack: it runs on every write (docs/benchmarks.md#code-shared-by-every-stack)
  return { name: 'class-ids', begin: beginIds.bind({ db, classOf }) };
}

function beginIds(this: { db: Database; classOf: (name: string) => Promise<ClassModel | null> }, work: UnitOfWork): WriteShare | undefined {
  let outside: Map<string, string[]> | undefined; // made only for a write that has such an id
  for (const { op, doc, classModel } of work.items) {
    if (op === 'create' && !(doc._id.startsWith(classModel.name) && doc._id[classModel.name.length] === '-')) {
      outside ??= new Map();
      outside.set(classModel.name, [...(outside.get(classModel.name) ?? []), doc._id]);
    }
  }
  if (!outside) return undefined;
  const { db, classOf } = this;
  const listed = outside;
  return {
    // inside the write lock, before anything is stored (a dry run does not list)
    async prepare() {
      for (const [className, ids] of listed) for (const id of ids) await refuseOtherClassId(id, className, classOf);
      await editOutsideIds(db, listed, true);
    },
  };
}
