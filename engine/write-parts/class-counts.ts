import type { StoredResult, UnitDoc, UnitOfWork, WritePart, WriteShare } from '../../contracts/unit-of-work.js';
import { keepShape } from '../../storage/kept-shapes.js';
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

/** a + b, per class, as a new map (neither is changed) */
function plus(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map(a);
  for (const [name, d] of b) out.set(name, (out.get(name) ?? 0) + d);
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
  // bound, not a closure per stack: it runs on every write (docs/benchmarks.md#code-shared-by-every-stack)
  return { name: 'class-counts', begin: beginCounts.bind(classCounts) };
}

function beginCounts(this: ClassCounts, work: UnitOfWork): WriteShare | undefined {
  return work.dryRun ? undefined : new CountsShare(this, work);
}

/** never changed: docs() sets a chunk's own map before stored() reads one */
const NO_DELTAS = new Map<string, number>();

/** One write's share: a class, not closures — every write makes one. */
class CountsShare implements WriteShare {
  /** every chunk's deltas so far (a chunk's own map is never changed: the first is kept as it is) */
  private total: Map<string, number> | undefined;
  /** deltas added to the counts so far (by chunks that carried a counter) */
  private counted: Map<string, number> | undefined;
  private carried: CountDoc[] = [];
  /** this chunk's (set by docs before anything reads it) */
  private deltas: Map<string, number> = NO_DELTAS;

  constructor(
    private readonly classCounts: ClassCounts,
    private readonly work: UnitOfWork,
  ) {}

  docs(start: number, end: number): UnitDoc[] | Promise<UnitDoc[]> {
    const deltas = (this.deltas = new Map());
    for (let i = start; i < end; i++) {
      const item = this.work.items[i];
      addDelta(deltas, item.classModel.name, counts(item.previous), counts(item.doc));
    }
    this.total = this.total ? plus(this.total, deltas) : deltas;
    const entries = this.classCounts.entries(deltas);
    return isPromiseLike(entries) ? Promise.resolve(entries).then((docs) => this.copies(docs)) : this.copies(entries);
  }

  private copies(docs: CountDoc[]): UnitDoc[] {
    this.carried = docs;
    return docs.length === 0 ? [] : docs.map((c) => ({ ...c }));
  }

  // called only for a chunk that carried counter documents
  stored(results: readonly StoredResult[]): undefined {
    this.classCounts.written(this.deltas, this.carried, results.map((r) => (r.error ? null : r.rev!)));
    this.counted = this.counted ? plus(this.counted, this.deltas) : this.deltas;
    return undefined;
  }

  async undo(): Promise<UnitDoc[]> {
    if (this.counted) await this.classCounts.apply(minus(new Map(), this.counted));
    return [];
  }

  done(): void | Promise<void> {
    return this.classCounts.apply(minus(this.total ?? new Map(), this.counted));
  }
}

// its hidden class outlives the writes (storage/kept-shapes.ts; Node only: the browser files have no bytes for it)
if (!globalThis.docstackBrowserBuild) keepShape(new CountsShare(null as never, { items: [], origin: 'local', dryRun: false }));
