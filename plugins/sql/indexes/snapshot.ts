import type { Key } from '../ranges.js';
import type { Seq, SqlStore } from '../store.js';
import { ClassIndex } from './class-index.js';

/**
 * The persistent form of a class index: `_local` documents (not replicated: an index is each
 * peer's own, like the primary-key index), so reopening a store does not rebuild:
 * - `_local/~sql/index/<Class>`: { attributes, seq, generation, pages };
 * - `_local/~sql/index/<Class>/<generation>/<n>`: { rows: [id, rev, active, ...keys][] }.
 * A save writes a new generation's pages, then the meta document at the revision it read (a
 * concurrent saver gets a conflict and drops its pages), then removes the old pages. So a
 * reader never mixes generations.
 */
interface Meta {
  attributes: string[];
  seq: Seq;
  generation: string;
  pages: number;
}

type Row = [string, string, 0 | 1, ...(Key | null)[]];

const PAGE_ROWS = 5000;
const metaId = (className: string) => `~sql/index/${className}`;
const pageId = (className: string, generation: string, n: number) => `~sql/index/${className}/${generation}/${n}`;

/** The saved index of a class, when there is one for exactly these attributes. */
export async function loadSnapshot(store: SqlStore, className: string, attributes: readonly string[]): Promise<ClassIndex | null> {
  const meta = await store.readLocal<Meta>(metaId(className));
  if (!meta || meta.attributes.join('\n') !== attributes.join('\n')) return null;
  const pages = await Promise.all(Array.from({ length: meta.pages }, (_, n) => store.readLocal<{ rows: Row[] }>(pageId(className, meta.generation, n))));
  if (pages.some((p) => !p)) return null;
  const index = new ClassIndex(className, attributes, meta.seq);
  for (const page of pages) {
    for (const [id, rev, active, ...keys] of page!.rows) index.entries.set(id, { rev, active: active === 1, keys });
  }
  return index;
}

/** Saves the index as it is now (its entries and its sequence are read in one synchronous pass). */
export async function saveSnapshot(store: SqlStore, index: ClassIndex): Promise<void> {
  const rows: Row[] = [];
  for (const [id, entry] of index.entries) rows.push([id, entry.rev, entry.active ? 1 : 0, ...entry.keys]);
  const seq = index.seq;
  const generation = globalThis.crypto.randomUUID();
  const pages: Row[][] = [];
  for (let start = 0; start < rows.length; start += PAGE_ROWS) pages.push(rows.slice(start, start + PAGE_ROWS));
  await Promise.all(pages.map((page, n) => store.writeLocal(pageId(index.className, generation, n), { rows: page })));
  const previous = await store.readLocal<Meta>(metaId(index.className));
  const meta: Meta = { attributes: [...index.attributes], seq, generation, pages: pages.length };
  const written = await store.writeLocal(metaId(index.className), meta, previous?._rev);
  const obsolete = written ? previous : { ...meta, _rev: undefined };
  if (obsolete) {
    await Promise.all(Array.from({ length: obsolete.pages }, (_, n) => store.removeLocal(pageId(index.className, obsolete.generation, n))));
  }
}

/** Forgets the saved index of a class (its indexed attributes are gone). */
export async function dropSnapshot(store: SqlStore, className: string): Promise<void> {
  const meta = await store.readLocal<Meta>(metaId(className));
  if (!meta) return;
  await Promise.all(Array.from({ length: meta.pages }, (_, n) => store.removeLocal(pageId(className, meta.generation, n))));
  await store.removeLocal(metaId(className));
}
