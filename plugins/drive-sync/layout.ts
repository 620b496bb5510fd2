import type { RevisionDoc } from '../../index.js';

/**
 * The drive's layout: one file per document, `<encoded id>.json`, holding the leaf revisions of
 * the document's revision tree, each with its `_revisions` path. A write merges the leaves it
 * read with the local ones and is conditional on the ETag it read; a device that loses the race
 * (412) reads again and merges again. Merging is a set union (minus leaves another leaf descends
 * from), so it is commutative and idempotent: whatever order devices write in, the file ends up
 * with every leaf any of them had, and each device's PouchDB picks the same winner from the same
 * tree.
 */
export const FORMAT = 'docstack-drive/1';

/** A leaf revision as stored in a drive file (and as `openRevs` with `revs: true` gives it). */
export type Leaf = RevisionDoc & { _revisions: { start: number; ids: string[] } };

export interface DriveDocFile {
  format: typeof FORMAT;
  id: string;
  leaves: Leaf[];
}

/** Ids longer than this are named by their hash (file names are at most 255 bytes on most drives). */
const MAX_PLAIN = 180;

/**
 * The file name of a document id: lowercase letters, digits, `-` and `.` as they are, every other
 * UTF-8 byte as `_xx`. Case-insensitive drives (Windows, macOS shares) cannot confuse `Note-a`
 * with `Note-A`, and no name needs URL escaping. The id itself is inside the file.
 */
export async function fileNameOf(id: string): Promise<string> {
  let name = '';
  for (const byte of new TextEncoder().encode(id)) {
    const ch = String.fromCharCode(byte);
    name += /[a-z0-9.-]/.test(ch) ? ch : `_${byte.toString(16).padStart(2, '0')}`;
  }
  if (name.length <= MAX_PLAIN) return `${name}.json`;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(id)));
  return `h_${[...digest].map((b) => b.toString(16).padStart(2, '0')).join('')}.json`;
}

/** Is this drive file one of ours (a document file)? Other files in the folder are left alone. */
export const isDocFileName = (name: string) => name.endsWith('.json') && !name.startsWith('.');

function isLeaf(value: unknown, id: string): value is Leaf {
  const leaf = value as Partial<Leaf> | null;
  if (!leaf || typeof leaf !== 'object' || leaf._id !== id || typeof leaf._rev !== 'string') return false;
  const revs = leaf._revisions;
  if (!revs || !Number.isInteger(revs.start) || !Array.isArray(revs.ids) || revs.ids.length === 0) return false;
  return revs.ids.every((h) => typeof h === 'string') && leaf._rev === `${revs.start}-${revs.ids[0]}`;
}

/**
 * Reads a drive file; null when it is not a complete file of this format (an upload cut short
 * leaves an empty or truncated file: the device that wrote it repairs it when it resumes, since
 * its own store holds every leaf the file had). Leaves that are not well-formed are dropped.
 */
export function parseDocFile(text: string): DriveDocFile | null {
  let parsed: Partial<DriveDocFile>;
  try {
    parsed = JSON.parse(text) as Partial<DriveDocFile>;
  } catch {
    return null;
  }
  if (!parsed || parsed.format !== FORMAT || typeof parsed.id !== 'string' || !Array.isArray(parsed.leaves)) return null;
  const id = parsed.id;
  return { format: FORMAT, id, leaves: parsed.leaves.filter((l) => isLeaf(l, id)) };
}

export function serializeDocFile(id: string, leaves: Leaf[]): string {
  return JSON.stringify({ format: FORMAT, id, leaves } satisfies DriveDocFile);
}

/** The union of two leaf sets, without the leaves some other leaf descends from, in `_rev` order. */
export function mergeLeaves(a: readonly Leaf[], b: readonly Leaf[]): Leaf[] {
  const byRev = new Map<string, Leaf>();
  for (const leaf of [...a, ...b]) if (!byRev.has(leaf._rev)) byRev.set(leaf._rev, leaf);
  const ancestors = new Set<string>();
  for (const { _revisions: { start, ids } } of byRev.values()) ids.slice(1).forEach((hash, k) => ancestors.add(`${start - k - 1}-${hash}`));
  return [...byRev.values()].filter((l) => !ancestors.has(l._rev)).sort((x, y) => (x._rev < y._rev ? -1 : x._rev > y._rev ? 1 : 0));
}

/** True when `merged` has no leaf `current` lacks: writing it would change nothing. */
export function sameLeaves(current: readonly Leaf[], merged: readonly Leaf[]): boolean {
  const have = new Set(current.map((l) => l._rev));
  return merged.length === current.length && merged.every((l) => have.has(l._rev));
}
