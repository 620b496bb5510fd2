import type { ClientStack } from '../../index.js';
import type { ChangeRow, ClassScope } from './change-filter.js';

/**
 * The first pull of a class-scoped sync (`since` 0) is answered from the id index instead of
 * the change feed: the documents of a class are the key range `<Class>-…`, so a tenant of
 * 50,000 documents answers a pull of one class of 5,000 by reading those 5,000, not the whole
 * feed. It is a snapshot of the store at `snapshot` (its update sequence, read first): the asked
 * ids (class documents, extraDocIds — first, so a class arrives before its documents), then each
 * class's range, then the ids its creators chose outside the ranges (storage.outsideIds); then the feed goes on from `snapshot` as usual, so whatever changed meanwhile
 * comes after (a document sent twice is harmless: `_revs_diff` drops it).
 *
 * Each row's `seq` is a cursor `<snapshot>-r<base64url([step, lastId])>`, which PouchDB keeps in
 * its checkpoint and sends back as `since`: an interrupted first pull resumes after the last
 * document it took. Rows carry every leaf revision (`style=all_docs`), conflicts included.
 */
export interface SnapshotPage {
  results: ChangeRow[];
  /** set when the snapshot is finished: the feed goes on from this sequence */
  feedSince: number | string | null;
  last_seq: number | string | null;
}

interface Cursor {
  snapshot: number | string;
  /** 0: the ids; 1 + i: the range of classes[i]; 1 + classes.length: the classes' ids outside their ranges */
  step: number;
  /** the last id sent in this step ('' for none yet) */
  after: string;
}

const CURSOR = /^([0-9]{1,16})-r([A-Za-z0-9_-]{1,2800})$/;

export function isSnapshotCursor(since: unknown): since is string {
  return typeof since === 'string' && CURSOR.test(since);
}

/** The feed sequence a `since` stands for: a snapshot cursor stands for its snapshot. */
export function feedSince(since: number | string): number | string {
  return isSnapshotCursor(since) ? Number(since.slice(0, since.indexOf('-'))) : since;
}

function encode(cursor: Cursor): string {
  return `${cursor.snapshot}-r${Buffer.from(JSON.stringify([cursor.step, cursor.after])).toString('base64url')}`;
}

function decode(since: string): Cursor | null {
  const m = CURSOR.exec(since);
  if (!m) return null;
  try {
    const [step, after] = JSON.parse(Buffer.from(m[2], 'base64url').toString('utf8')) as unknown[];
    if (!Number.isSafeInteger(step) || (step as number) < 0 || typeof after !== 'string') return null;
    return { snapshot: Number(m[1]), step: step as number, after };
  } catch {
    return null;
  }
}

type AllDocsRow = { id?: string; key?: string; value?: { rev: string; deleted?: boolean }; doc?: Record<string, unknown> & { _rev?: string; _conflicts?: string[] }; error?: string };

function rowOf(row: AllDocsRow, seq: string, includeDocs: boolean): ChangeRow & { changes: Array<{ rev: string }> } {
  const leaves = [row.value!.rev, ...(row.doc?._conflicts ?? [])];
  const change: ChangeRow & { changes: Array<{ rev: string }> } = { id: row.id!, seq, changes: leaves.map((rev) => ({ rev })) };
  if (row.value?.deleted) change.deleted = true;
  if (includeDocs && row.doc) change.doc = row.doc;
  return change;
}

/**
 * One page of the snapshot, at most `limit` rows, from `since` (0 or a cursor). Returns null
 * when `since` is neither (the caller reads the feed).
 */
export async function snapshotPage(stack: ClientStack, scope: ClassScope, since: number | string, limit: number, includeDocs: boolean, readable: (id: string) => boolean): Promise<SnapshotPage | null> {
  let cursor: Cursor;
  if (since === 0 || since === '0') cursor = { snapshot: (await stack.storage.info()).updateSeq, step: 0, after: '' };
  else if (typeof since === 'string' && isSnapshotCursor(since)) {
    const decoded = decode(since);
    if (!decoded) return null;
    cursor = decoded;
  } else return null;
  if (typeof cursor.snapshot !== 'number') return null; // a store whose sequences are not numbers: read the feed
  const { replication } = stack.storage;
  const results: ChangeRow[] = [];
  let lastSeq: string | null = null;
  const last = scope.classes.length + 1; // the step of the ids given outside the classes' ranges
  const keyed = async (all: readonly string[]): Promise<AllDocsRow[]> => {
    const ids = all.filter((id) => id > cursor.after);
    const found = ids.length === 0 ? [] : ((await replication.allDocs({ keys: ids.slice(0, limit - results.length), include_docs: true, conflicts: true })).rows as AllDocsRow[]);
    const rows = found.map((row) => ({ ...row, id: row.id ?? row.key })); // a missing id answers { key, error }
    return ids.length <= limit - results.length && rows.length === ids.length ? rows.concat([{ id: undefined }]) : rows; // { id: undefined } marks the step as done
  };
  while (results.length < limit && cursor.step <= last) {
    let rows: AllDocsRow[];
    if (cursor.step === 0) rows = await keyed(scope.ids);
    else if (cursor.step === last) {
      // a document whose id its creator chose outside `<Class>-…` (listed per class): of a scope class only
      const outside = [...new Set((await Promise.all(scope.classes.map((name) => stack.storage.outsideIds(name)))).flat())].sort();
      rows = (await keyed(outside)).filter((row) => row.id === undefined || (typeof row.doc?.['~class'] === 'string' && scope.classes.includes(row.doc['~class'])));
    } else {
      const prefix = `${scope.classes[cursor.step - 1]}-`;
      const want = limit - results.length;
      rows = (await replication.allDocs({ startkey: cursor.after === '' ? prefix : `${cursor.after}\u0000`, endkey: `${prefix}\uffff`, limit: want, include_docs: true, conflicts: true })).rows as AllDocsRow[];
      if (rows.length < want) rows = rows.concat([{ id: undefined }]);
    }
    for (const row of rows) {
      if (row.id === undefined) {
        cursor = { ...cursor, step: cursor.step + 1, after: '' };
        continue;
      }
      cursor = { ...cursor, after: row.id };
      if (row.error || !row.value || !readable(row.id)) continue;
      const seq = encode(cursor);
      results.push(rowOf(row, seq, includeDocs));
      lastSeq = seq;
    }
  }
  const finished = cursor.step > last;
  return { results, feedSince: finished ? cursor.snapshot : null, last_seq: finished ? null : (lastSeq ?? encode(cursor)) };
}
