import type { UnitDoc, WritePart } from '../../contracts/unit-of-work.js';
import { isPromiseLike } from '../../storage/settle.js';
import { addDelta, counts, type ClassCounts, type CountDoc } from '../indexes/class-counts.js';

/** a − b, per class (the zero entries left out); `b` none: `a` itself */
function minus(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number> | undefined): ReadonlyMap<string, number> {
  if (!b) return a;
  const out = new Map<string, number>();
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const d = (a.get(name) ?? 0) - (b.get(name) ?? 0);
    if (d !== 0) out.set(name, d);
  }
  return out;
}

/**
 * Each class's counter of active documents, as a unit-of-work part. The counts live in memory
 * (ClassCounts): a chunk's bulkDocs carries a class's counter document only when the counter does
 * not list this writer as dirty yet — most calls carry none. A chunk that carried one adds its
 * deltas when stored; the others' are added once the whole write is stored, and an undone write
 * takes back what was added. A write whose counters are known reads nothing and returns no
 * promise from any step (a serial writer makes one such write per document).
 */
export function classCountsPart(classCounts: ClassCounts): WritePart {
  return {
    name: 'class-counts',
    begin(work) {
      if (work.dryRun) return undefined;
      let total: Map<string, number> | undefined; // every chunk's deltas: the first chunk's own map until a second chunk comes
      let counted: Map<string, number> | undefined; // deltas added to the counts so far (by chunks that carried a counter)
      let carried: CountDoc[] = [];
      let deltas: Map<string, number> = new Map(); // this chunk's (set by docs before anything reads it)
      let first: Map<string, number> | undefined;
      const copies = (docs: CountDoc[]): UnitDoc[] => {
        carried = docs;
        return docs.length === 0 ? [] : docs.map((c) => ({ ...c }));
      };
      return {
        docs(start, end) {
          deltas = new Map();
          for (let i = start; i < end; i++) {
            const item = work.items[i];
            addDelta(deltas, item.classModel.name, counts(item.previous), counts(item.doc));
          }
          if (!total) total = deltas;
          else {
            if (total === first) total = new Map(total);
            for (const [name, d] of deltas) total.set(name, (total.get(name) ?? 0) + d);
          }
          first ??= deltas;
          const entries = classCounts.entries(deltas);
          return isPromiseLike(entries) ? Promise.resolve(entries).then(copies) : copies(entries);
        },
        // called only for a chunk that carried counter documents
        stored(results) {
          classCounts.written(deltas, carried, results.map((r) => (r.error ? null : r.rev!)));
          counted ??= new Map();
          for (const [name, d] of deltas) counted.set(name, (counted.get(name) ?? 0) + d);
          return undefined;
        },
        async undo() {
          if (counted) await classCounts.apply(minus(new Map(), counted));
          return [];
        },
        done: () => classCounts.apply(minus(total ?? new Map(), counted)),
      };
    },
  };
}
