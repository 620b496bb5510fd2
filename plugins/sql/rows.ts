import type { TableInfo } from './catalog.js';
import { SQL_ERRORS } from './errors.js';
import type { ClientStack, Doc } from '../../index.js';
import { planFor } from '../../kit/index.js';

export type Row = Record<string, unknown>;

/** What an encrypted value reads as where its key is not held (the encryption plugin's marker). */
const isSealedMarker = (v: unknown): boolean => typeof v === 'object' && v !== null && (v as Record<string, unknown>)['~sealed'] === true;

/**
 * The rows of a table: each document as a reader sees it (afterRead: encrypted attributes open
 * when their key is held), one column per attribute and system column (missing values are
 * NULL), values copied so nothing the caller gets back is shared with storage or caches.
 */
export async function toRows(stack: ClientStack, info: TableInfo, docs: Doc[]): Promise<Row[]> {
  // only the afterRead taps with work for this class (the kernel's per-class plan): a class with
  // no encrypted attribute reads its documents as stored, without a hook call per row
  const afterRead = info.model ? planFor(stack.hooks, info.model, 'local').afterRead : null;
  const read = afterRead ? await Promise.all(docs.map((d) => afterRead.promise(d, { stack, classModel: info.model! }))) : docs;
  return read.map((doc) => {
    const row: Row = {};
    for (const column of info.columns.keys()) {
      const value = doc[column];
      row[column] = value === undefined ? null : typeof value === 'object' && value !== null ? structuredClone(value) : value;
    }
    return row;
  });
}

/**
 * An encrypted column the statement filters, sorts, groups or computes on must be readable:
 * a sealed value there would give a silently wrong answer, so the statement is refused.
 */
export function refuseSealed(info: TableInfo, computed: ReadonlySet<string>, rows: readonly Row[]): void {
  for (const column of computed) {
    if (!info.encrypted.has(column)) continue;
    if (rows.some((row) => isSealedMarker(row[column]))) {
      throw SQL_ERRORS.encryptedLocked(`"${info.name}.${column}" is encrypted and its key is not held here (unlock the stack): it can be selected (as sealed) but not filtered, sorted or computed on.`, {
        path: column,
        details: { table: info.name, column },
      });
    }
  }
}

/** alasql leaves NULLs of outer joins and missing aggregates as undefined: callers get null. */
export function cleanRows(rows: unknown): Row[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row) => {
    const out: Row = {};
    for (const [k, v] of Object.entries(row as Row)) out[k] = v === undefined ? null : v;
    return out;
  });
}
