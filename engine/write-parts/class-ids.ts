import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { WritePart } from '../../contracts/unit-of-work.js';
import type { ClassModel } from '../../contracts/model.js';
import { inClassRange, registerOutsideIds } from '../../storage/class-ids.js';
import type { Database } from '../../storage/database.js';

/**
 * An id outside its class's range may not lie in another class's: `<Other>-…`, where `<Other>`
 * (the id up to its first `-`, class names have none) is a stored class — that class's scans
 * would read it, its counter would not count it. DS_DOC_ID_OTHER_CLASS. The kernel's
 * checkDocId has refused the system ids already.
 */
export async function refuseOtherClassId(id: string, className: string, classOf: (name: string) => Promise<ClassModel | null>): Promise<void> {
  if (inClassRange(className, id)) return;
  const head = id.slice(0, id.indexOf('-'));
  if (head === '' || !(await classOf(head))) return;
  throw KERNEL_ERRORS.docIdOtherClass(
    `${JSON.stringify(id)} lies in the id range of the class ${JSON.stringify(head)} ("${head}-…"): a ${className} document cannot take it; choose an id that does not start with "${head}-".`,
    { path: '_id', details: { id, className, rangeOf: head } },
  );
}

/**
 * The unit-of-work part that lists a class's out-of-range ids (storage/class-ids.ts): a write
 * creating documents whose id a caller chose outside `<Class>-…` has them checked
 * (refuseOtherClassId) and listed, ahead of the documents, in a storage call of its own inside
 * the write lock. Any other write (every id in its class's range: the common path) gets no
 * share: no read, no storage call.
 */
export function classIdsPart(db: Database, classOf: (name: string) => Promise<ClassModel | null>): WritePart {
  return {
    name: 'class-ids',
    begin(work) {
      let outside: Map<string, string[]> | undefined;
      for (const item of work.items) {
        if (item.op !== 'create' || inClassRange(item.classModel.name, item.doc._id)) continue;
        outside ??= new Map();
        const ids = outside.get(item.classModel.name) ?? [];
        ids.push(item.doc._id);
        outside.set(item.classModel.name, ids);
      }
      if (!outside) return undefined;
      const listed = outside;
      return {
        async checked() {
          for (const [className, ids] of listed) for (const id of ids) await refuseOtherClassId(id, className, classOf);
        },
        async prepare() {
          if (!work.dryRun) await registerOutsideIds(db, listed);
        },
      };
    },
  };
}
