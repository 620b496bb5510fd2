import type { Doc } from '../../index.js';

/**
 * The `~tx` field of a document (docs/transactions.md#across-replication). A revision written by
 * a transaction carries `id` and `size` (all stamps since the first version) and, since peers
 * resolve overtaken members, `by`, `up` and `owes`. A later revision written outside that
 * transaction (another transaction, or a plain update) carries only what it owes.
 */
export interface TxStamp {
  /** the transaction that wrote this revision */
  id?: string;
  /** how many documents it wrote */
  size?: number;
  /** how many of them per class: a filtered sync knows which members it will never receive */
  by?: Record<string, number>;
  /**
   * the members that existed before it (updates, deletes) with the revision generation it wrote
   * them at; left out when there are more than UP_LISTED (then each carries the debt in `owes`)
   */
  up?: [string, number][];
  /**
   * earlier transactions this document was a member of that do not name it in their `up` (it
   * was created by them, or their list was left out): a peer counts this revision as their member
   */
  owes?: string[];
}

/** Members listed in every member's `up`: a transaction updating more lists none (cost: n × listed). */
export const UP_LISTED = 32;

export interface StampedWrite {
  draft: Doc;
  previous?: Doc;
  className: string;
}

export function stampOf(doc: unknown): TxStamp | undefined {
  const stamp = (doc as { '~tx'?: unknown } | null | undefined)?.['~tx'];
  return stamp !== null && typeof stamp === 'object' && !Array.isArray(stamp) ? (stamp as TxStamp) : undefined;
}

/** A revision's generation: the number before the dash (0 when there is none). */
export function generation(rev: unknown): number {
  const n = typeof rev === 'string' ? Number.parseInt(rev, 10) : NaN;
  return Number.isFinite(n) ? n : 0;
}

/** Whether a stamp names document `id` in its `up` list. */
function lists(stamp: TxStamp, id: string): boolean {
  return Array.isArray(stamp.up) && stamp.up.some((entry) => Array.isArray(entry) && entry[0] === id);
}

/**
 * What a revision of `id` written outside the transaction of its previous revision owes: the
 * previous revision's debts, and that transaction itself unless it lists the document.
 */
export function debtsOf(previous: Doc | undefined, id: string): string[] {
  const stamp = stampOf(previous);
  if (!stamp) return [];
  const owes = Array.isArray(stamp.owes) ? stamp.owes.filter((t) => typeof t === 'string') : [];
  if (typeof stamp.id === 'string' && !lists(stamp, id) && !owes.includes(stamp.id)) owes.push(stamp.id);
  return owes;
}

/** The stamps of a transaction's writes, in order. */
export function stampsFor(txId: string, writes: readonly StampedWrite[]): TxStamp[] {
  const by: Record<string, number> = {};
  for (const w of writes) by[w.className] = (by[w.className] ?? 0) + 1;
  const updated = writes.filter((w) => w.previous !== undefined);
  const up = updated.length > 0 && updated.length <= UP_LISTED ? updated.map((w): [string, number] => [w.draft._id, generation(w.previous!._rev) + 1]) : undefined;
  return writes.map((w) => {
    const owes = debtsOf(w.previous, w.draft._id).filter((t) => t !== txId);
    return { id: txId, size: writes.length, by, ...(up ? { up } : {}), ...(owes.length > 0 ? { owes } : {}) };
  });
}

/** The stamp of a revision written outside any transaction over `previous`: its debts only, or none. */
export function plainStamp(previous: Doc | undefined, id: string): TxStamp | undefined {
  const owes = debtsOf(previous, id);
  return owes.length > 0 ? { owes } : undefined;
}
