import type { WritePart } from '../../contracts/unit-of-work.js';
import { addDelta, counts, type ClassCounts, type CountDoc } from '../indexes/class-counts.js';

/** a − b, per class (the zero entries left out) */
function minus(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): Map<string, number> {
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
 * takes back what was added.
 */
export function classCountsPart(classCounts: ClassCounts): WritePart {
  return {
    name: 'class-counts',
    begin(work) {
      if (work.dryRun) return undefined;
      const total = new Map<string, number>();
      const counted = new Map<string, number>(); // deltas added to the counts so far
      let carried: CountDoc[] = [];
      let deltas = new Map<string, number>();
      return {
        async docs(start, end) {
          deltas = new Map();
          for (let i = start; i < end; i++) {
            const item = work.items[i];
            addDelta(deltas, item.classModel.name, counts(item.previous), counts(item.doc));
          }
          for (const [name, d] of deltas) total.set(name, (total.get(name) ?? 0) + d);
          carried = await classCounts.entries(deltas);
          return carried.map((c) => ({ ...c }));
        },
        // called only for a chunk that carried counter documents
        stored(results) {
          classCounts.written(deltas, carried, results.map((r) => (r.error ? null : r.rev!)));
          for (const [name, d] of deltas) counted.set(name, (counted.get(name) ?? 0) + d);
          return undefined;
        },
        async undo() {
          await classCounts.apply(minus(new Map(), counted));
          return [];
        },
        done: () => classCounts.apply(minus(total, counted)),
      };
    },
  };
}
