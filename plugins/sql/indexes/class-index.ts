import { compareKeys, isKey, type Key, type Range } from '../ranges.js';
import type { Seq } from '../store.js';
import type { Doc } from '../../../index.js';

/** What the index knows of one document: its revision, whether it is active, its indexed values. */
export interface Entry {
  rev: string;
  active: boolean;
  /** aligned with ClassIndex.attributes; null when the document has no indexable value there */
  keys: (Key | null)[];
}

/** One attribute's keys in order: parallel arrays, sorted by (key, id). */
interface Column {
  keys: Key[];
  ids: string[];
  /** edits applied in place since the last full sort */
  edits: number;
}

/** Past this many in-place edits a column is re-sorted on its next read instead (bulk writes). */
const MAX_EDITS = 2000;

function lowerBound(col: Column, key: Key, id: string): number {
  let lo = 0;
  let hi = col.keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = compareKeys(col.keys[mid], key) || (col.ids[mid] < id ? -1 : col.ids[mid] > id ? 1 : 0);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The positions [from, to) of a range's keys: two binary searches, an id past every real id
 * (open lower or closed upper bound) or before all of them placing the bound among equal keys.
 */
function bounds(col: Column, range: Range): [number, number] {
  const from = range.lo === undefined ? 0 : lowerBound(col, range.lo, range.loOpen ? '\uffff\uffff' : '');
  const to = range.hi === undefined ? col.keys.length : lowerBound(col, range.hi, range.hiOpen ? '' : '\uffff\uffff');
  return [from, to];
}

/**
 * The secondary index of one class, in memory: every document of the class by id (revision,
 * active, indexed values) and, per indexed attribute, its keys in order. Lookups are binary
 * searches; writes edit the sorted arrays in place (a splice), and a bulk write lets the next
 * read sort again once. `seq` is the store sequence whose changes it reflects (see IndexSet).
 */
export class ClassIndex {
  readonly entries = new Map<string, Entry>();
  private readonly columns: (Column | null)[];

  constructor(
    readonly className: string,
    readonly attributes: readonly string[],
    public seq: Seq,
  ) {
    this.columns = attributes.map(() => null);
  }

  entryOf(doc: Doc): Entry {
    return { rev: doc._rev ?? '', active: doc.active !== false, keys: this.attributes.map((a) => (isKey(doc[a]) ? (doc[a] as Key) : null)) };
  }

  /** Records a document as stored now (null: it is gone). */
  set(id: string, entry: Entry | null): void {
    const before = this.entries.get(id);
    if (entry) this.entries.set(id, entry);
    else this.entries.delete(id);
    this.attributes.forEach((_, i) => {
      const col = this.columns[i];
      if (!col) return;
      const oldKey = before?.keys[i] ?? null;
      const newKey = entry?.keys[i] ?? null;
      if (oldKey === newKey) return;
      if (++col.edits > MAX_EDITS) {
        this.columns[i] = null;
        return;
      }
      if (oldKey !== null) {
        const at = lowerBound(col, oldKey, id);
        if (col.ids[at] === id) {
          col.keys.splice(at, 1);
          col.ids.splice(at, 1);
        }
      }
      if (newKey !== null) {
        const at = lowerBound(col, newKey, id);
        col.keys.splice(at, 0, newKey);
        col.ids.splice(at, 0, id);
      }
    });
  }

  private column(i: number): Column {
    let col = this.columns[i];
    if (!col) {
      const pairs: [Key, string][] = [];
      for (const [id, entry] of this.entries) if (entry.keys[i] !== null) pairs.push([entry.keys[i]!, id]);
      pairs.sort((a, b) => compareKeys(a[0], b[0]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
      col = { keys: pairs.map((p) => p[0]), ids: pairs.map((p) => p[1]), edits: 0 };
      this.columns[i] = col;
    }
    return col;
  }

  /** Ids (with their revisions) whose key lies in one of the ranges; inactive ones only when asked. */
  lookup(attribute: string, ranges: readonly Range[], includeInactive: boolean): { id: string; rev: string }[] {
    const col = this.column(this.attributes.indexOf(attribute));
    const found = new Map<string, string>();
    for (const range of ranges) {
      const [from, to] = bounds(col, range);
      for (let at = from; at < to; at++) {
        const entry = this.entries.get(col.ids[at])!;
        if (entry.active || includeInactive) found.set(col.ids[at], entry.rev);
      }
    }
    return [...found].map(([id, rev]) => ({ id, rev }));
  }

  /** How many documents (active or not) a lookup would name: the planner's estimate, two binary searches per range. */
  count(attribute: string, ranges: readonly Range[]): number {
    const col = this.column(this.attributes.indexOf(attribute));
    let n = 0;
    for (const range of ranges) {
      const [from, to] = bounds(col, range);
      n += Math.max(0, to - from);
    }
    return n;
  }

}
