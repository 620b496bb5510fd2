import type { WritePart } from '../../contracts/unit-of-work.js';
import { addDelta, classOfCountId, counts, type ClassCounts, type CountDoc } from '../indexes/class-counts.js';

/** Brings the counters to what is stored when their write in the batch did not hold. */
async function correctCounts(classCounts: ClassCounts, wanted: Map<string, number>, counted: Map<string, number>): Promise<void> {
  const missing = new Map<string, number>();
  for (const name of new Set([...wanted.keys(), ...counted.keys()])) {
    const delta = (wanted.get(name) ?? 0) - (counted.get(name) ?? 0);
    if (delta !== 0) missing.set(name, delta);
  }
  if (missing.size > 0) await classCounts.apply(missing);
}

/**
 * Each class's counter of active documents, as a unit-of-work part: a chunk's counters are
 * stored in its bulkDocs call; a counter whose write did not hold is corrected once the write is
 * stored, and an undone write takes its counted deltas back.
 */
export function classCountsPart(classCounts: ClassCounts): WritePart {
  return {
    name: 'class-counts',
    begin(work) {
      if (work.dryRun) return undefined;
      const total = new Map<string, number>();
      const counted = new Map<string, number>(); // deltas the stored counters hold so far
      let counters: CountDoc[] = [];
      let deltas = new Map<string, number>();
      return {
        async docs(start, end) {
          deltas = new Map();
          for (let i = start; i < end; i++) {
            const item = work.items[i];
            addDelta(deltas, item.classModel.name, counts(item.previous), counts(item.doc));
          }
          for (const [name, d] of deltas) total.set(name, (total.get(name) ?? 0) + d);
          counters = await classCounts.entries(deltas);
          return counters.map((c) => ({ ...c }));
        },
        stored(results) {
          results.forEach((result, i) => {
            const name = classOfCountId(counters[i]._id);
            classCounts.stored(counters[i], result.error ? null : result.rev!);
            if (!result.error) counted.set(name, (counted.get(name) ?? 0) + (deltas.get(name) ?? 0));
          });
          return undefined;
        },
        async undo() {
          await correctCounts(classCounts, new Map(), counted);
          return [];
        },
        done: () => correctCounts(classCounts, total, counted),
      };
    },
  };
}
