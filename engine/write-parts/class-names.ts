import type { UnitDoc, WritePart } from '../../contracts/unit-of-work.js';
import type { ClassNamesIndex } from '../indexes/class-names.js';

/** From this many documents, a write stores the class-name checkpoint at once instead of with the next write. */
const PERSIST_AFTER = 50;

/**
 * Keeps the class-name index moving with the pipeline's writes, so it never reads them back
 * (engine/indexes/class-names.ts). Before each bulkDocs call the store's update sequence is
 * read; when the next reading (before the next call, or once the write is stored) moved by
 * exactly the call's documents, nobody else wrote in between and the index takes the call's
 * class documents as they are. The checkpoint the index reached rides in the next call's
 * bulkDocs, so it is stored with the documents it follows; a large write stores it at the end.
 */
export function classNamesPart(index: ClassNamesIndex): WritePart {
  return {
    name: 'class-names',
    begin(work) {
      if (work.dryRun) return undefined;
      /** the chunk stored last (its items and the update sequence before it), when the index accounted for what came before */
      let previous: { start: number; end: number; seq: number } | null = null;
      let carried: ReturnType<ClassNamesIndex['checkpoint']> = null;
      const settle = async (): Promise<number> => {
        const seq = await index.updateSeq();
        if (previous) index.written(previous.seq, seq, work.items.slice(previous.start, previous.end).map((item) => item.doc));
        return seq;
      };
      return {
        async docs(start, end) {
          const seq = await settle();
          previous = (await index.accountsFor(seq)) ? { start, end, seq } : null;
          carried = index.checkpoint();
          return carried ? [{ ...carried } as UnitDoc] : [];
        },
        stored(results) {
          if (carried) index.stored(carried, results[0]?.error ? null : results[0].rev!);
          return undefined;
        },
        // the checkpoint stored before the failure is exact at its sequence; the reverts are later changes
        undo: async () => [],
        async done() {
          await settle();
          previous = null;
          if (work.items.length >= PERSIST_AFTER) await index.persist();
        },
      };
    },
  };
}
