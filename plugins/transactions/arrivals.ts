import { TX_ERRORS } from './errors.js';
import { generation, stampOf, UP_LISTED, type TxStamp } from './stamp.js';
import type { ClientStack, Doc, IngestItem, IngestRefusal } from '../../index.js';

const ARRIVALS_ID = '_local/~tx/arrivals';
/** How many transactions not pending here the documents owing them are remembered for (see `owed`). */
const OWED_KEPT = 1000;
/** What this stack resolved without some members, as peers pulling from it read it (the node serves it). */
export const INCOMPLETE_ID = '_local/~tx/incomplete';

/** A member that will never be stored here: refused by this stack, or by the peer it came through. */
export interface MissingMember {
  id: string;
  code: string;
  reason: string;
}

/** A transaction shown without some of its members (`tx:incomplete`). */
export interface IncompleteTransaction {
  id: string;
  missing: MissingMember[];
  /** this stack's update sequence when it was resolved: a peer that pulled past it has all the rest */
  seq: number | string;
  at: string;
}

/** A transaction some of whose members arrived here, not all: its members are hidden. */
export interface PendingTransaction {
  id: string;
  size: number;
  /** how many members this stack waits for (fewer than size under a filtered sync) */
  expected: number;
  arrived: number;
  refused: MissingMember[];
  since: string;
}

interface PendingRecord {
  size: number;
  by?: Record<string, number>;
  up?: [string, number][];
  refused?: MissingMember[];
  since?: string;
}

interface ArrivalsDoc {
  _id: string;
  _rev?: string;
  /** id → record (a plain number: the size, as the first version kept it) */
  pending: Record<string, PendingRecord | number>;
  incomplete?: Record<string, IncompleteTransaction>;
  /** the classes this stack's syncs pull (absent or 'all': every class) */
  receives?: 'all' | string[];
  /** transactions shown with only the members of the classes pulled then: a member arriving later shows at once */
  short?: string[];
}

interface Pending extends PendingRecord {
  refused: MissingMember[];
  since: string;
  /** members stored here → their class while this hides them and they are active (else null), for counts */
  counted: Map<string, string | null>;
}

/**
 * Transactions arriving from peers (docs/transactions.md#across-replication). A revision stamped
 * by a transaction of several documents starts it pending: its members are hidden from reads
 * until each is resolved — stored here at the transaction's revision or a later one (a later
 * revision owing it, or at or after the generation its `up` list names), refused here, outside
 * the classes this stack pulls, or reported refused by the node it pulls from. Then all show.
 * Pending transactions and those resolved without some members are kept in a `_local` document;
 * which members arrived is counted again from the stored documents on open.
 */
export class Arrivals {
  private readonly pending = new Map<string, Pending>();
  /** listed member id → pending transaction id → the generation it was written at */
  private readonly listed = new Map<string, Map<string, number>>();
  /**
   * transaction id not pending here → the documents stored here whose revision owes it (the
   * latest OWED_KEPT transactions): a pull may bring such a revision before any stamped one of
   * the transaction (the changes feed orders by each document's latest change), and it counts
   * when the transaction starts. In memory only: a reopen counts every stored document again.
   */
  private readonly owed = new Map<string, Set<string>>();
  private incomplete: Record<string, IncompleteTransaction> = {};
  private receiving: 'all' | string[] | undefined;
  private readonly short = new Set<string>();
  private rev: string | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly stack: ClientStack) {}

  async load(): Promise<void> {
    const doc = await this.stack.storage.get<ArrivalsDoc>(ARRIVALS_ID);
    this.rev = doc?._rev;
    this.incomplete = doc?.incomplete ?? {};
    this.receiving = doc?.receives;
    for (const id of doc?.short ?? []) this.short.add(id);
    for (const [id, record] of Object.entries(doc?.pending ?? {})) this.start(id, typeof record === 'number' ? { size: record } : record);
    if (this.pending.size === 0) return;
    for await (const page of this.stack.storage.pages('')) for (const stored of page) this.count(stored);
    await this.settleAll();
    await this.persist();
  }

  /**
   * Hidden: a document whose own stamp names a transaction still pending here (its `id`, or one
   * it owes). A member known only from another member's `up` list is counted, not hidden: a
   * peer's stamp may name any document, and must not hide another writer's.
   */
  hides(doc: Doc): boolean {
    if (this.pending.size === 0) return false;
    return named(doc).some((id) => this.pending.has(id));
  }

  /** Before a peer's document is stored: a member of a transaction new here starts it pending. */
  async admit(item: IngestItem): Promise<void> {
    // a tombstone carries no stamp and gets no afterWrite: a member listed in `up` counts by its generation
    if (item.doc._deleted === true) return this.stored(item.doc as unknown as Doc);
    const stamp = stampOf(item.doc);
    if (!this.startsPending(stamp, item.previous, item.doc._id)) return;
    this.start(stamp!.id!, recordOf(stamp!));
    await this.countKnown(stamp!.id!);
    await this.persist();
  }

  /** Once stored: counted for every pending transaction it resolves; the last one shows them all. */
  async stored(doc: Doc): Promise<void> {
    const ids = this.count(doc);
    for (const id of named(doc)) if (!this.pending.has(id)) this.remember(id, doc._id);
    if (ids.length > 0 && (await this.settle(ids))) await this.persist();
  }

  /** Documents this stack refused: each is a member its transaction resolves without. */
  async refused(refusals: readonly IngestRefusal[]): Promise<void> {
    let changed = false;
    for (const refusal of refusals) {
      const stamp = stampOf(refusal.doc);
      const id = stamp?.id;
      if (typeof id !== 'string' || !(Number(stamp!.size) > 1)) continue;
      const missing: MissingMember = { id: refusal.id, code: refusal.code, reason: refusal.reason };
      const resolved = this.incomplete[id];
      if (resolved) {
        if (resolved.missing.some((m) => m.id === missing.id)) continue;
        resolved.missing.push(missing);
        changed = true;
        continue;
      }
      if (!this.pending.has(id)) {
        // a transaction already shown here: a refused later push of one of its members changes nothing
        const stored = (await this.stack.storage.get<Doc>(refusal.id)) ?? undefined;
        // (another ingest may have started it meanwhile)
        if (!this.pending.has(id)) {
          if (!this.startsPending(stamp, stored, refusal.id)) continue;
          this.start(id, recordOf(stamp!));
          await this.countKnown(id);
        }
      }
      const entry = this.pending.get(id)!;
      if (!entry.refused.some((m) => m.id === missing.id)) entry.refused.push(missing);
      changed = true;
    }
    if (!changed) return;
    await this.settleAll();
    await this.persist();
  }

  /**
   * The classes this stack's syncs pull: `null` for every class. Members of other classes are
   * never waited for (a filtered sync never brings them). A stack that pulls several scopes
   * waits for their union.
   */
  async receives(classes: readonly string[] | null): Promise<void> {
    const before = JSON.stringify(this.receiving ?? null);
    if (classes === null) this.receiving = 'all';
    else if (this.receiving !== 'all') this.receiving = [...new Set([...(this.receiving ?? []), ...classes])].sort();
    if (JSON.stringify(this.receiving) === before) return;
    await this.settleAll();
    await this.persist();
  }

  /**
   * What the peer this stack pulls from resolved without some members (its INCOMPLETE_ID
   * document), once a pull read that peer's changes up to `pulledTo`: a transaction it resolved
   * at or before that sequence has reached this stack whole as far as it will ever come.
   */
  async settleFromPeer(resolved: Record<string, { seq?: unknown; missing?: unknown }>, pulledTo: unknown): Promise<void> {
    let changed = false;
    for (const [id, entry] of Object.entries(resolved)) {
      const pending = this.pending.get(id);
      if (!pending || !reached(pulledTo, entry?.seq)) continue;
      const ids = Array.isArray(entry.missing) ? entry.missing.filter((m): m is string => typeof m === 'string') : [];
      for (const member of ids) {
        if (!pending.refused.some((m) => m.id === member)) pending.refused.push({ id: member, code: TX_ERRORS.memberRefused.code, reason: 'The peer this stack pulls from refused it.' });
      }
      await this.resolve(id, pending);
      changed = true;
    }
    if (changed) await this.persist();
  }

  /** Shows a pending transaction as it is now (an operator's decision); its missing members listed as released. */
  async release(id: string): Promise<boolean> {
    const pending = this.pending.get(id);
    if (!pending) return false;
    await this.resolve(id, pending, TX_ERRORS.released.code);
    await this.persist();
    return true;
  }

  /** The ids of a class's active documents hidden here now. */
  hiddenIds(className: string): string[] {
    const ids = new Set<string>();
    for (const entry of this.pending.values()) for (const [id, name] of entry.counted) if (name === className) ids.add(id);
    return [...ids];
  }

  list(): PendingTransaction[] {
    return [...this.pending].map(([id, p]) => ({ id, size: p.size, expected: this.expected(p), arrived: p.counted.size, refused: [...p.refused], since: p.since }));
  }

  incompleteList(): IncompleteTransaction[] {
    return Object.values(this.incomplete).map((t) => ({ ...t, missing: [...t.missing] }));
  }

  /** Resolves when what was decided so far is stored. */
  flushed(): Promise<unknown> {
    return this.tail;
  }

  /**
   * A stamped revision of a transaction neither pending nor resolved here, of a member not
   * accounted for here already: not a later revision of a member already shown, nor a listed
   * member whose stored revision is at or past the generation its `up` names (a sibling of the
   * same generation from another branch, or a later revision: that member counted when the
   * transaction was resolved here, which is not remembered — starting it again would wait for
   * members that arrived before and never come again).
   */
  private startsPending(stamp: TxStamp | undefined, previous: Doc | undefined, docId: string): boolean {
    const id = stamp?.id;
    if (typeof id !== 'string' || !(Number(stamp!.size) > 1) || this.pending.has(id) || this.incomplete[id] || this.short.has(id)) return false;
    if (!previous) return true;
    const before = stampOf(previous);
    if (before && (before.id === id || (Array.isArray(before.owes) && before.owes.includes(id)))) return false;
    const listed = Array.isArray(stamp!.up) ? stamp!.up.find((e) => Array.isArray(e) && e[0] === docId) : undefined;
    return !(listed && generation(previous._rev) >= (Number(listed[1]) || 0));
  }

  private start(id: string, record: PendingRecord): void {
    const entry: Pending = { ...record, refused: record.refused ?? [], since: record.since ?? new Date(this.stack.clock.now()).toISOString(), counted: new Map() };
    this.pending.set(id, entry);
    for (const [member, gen] of Array.isArray(record.up) ? record.up : []) {
      if (typeof member !== 'string') continue;
      if (!this.listed.has(member)) this.listed.set(member, new Map());
      this.listed.get(member)!.set(id, Number(gen) || 0);
    }
  }

  /**
   * Members already stored here: listed ones at or after their generation (they arrived
   * overtaken, or first), and those whose revision owes it and arrived before it started.
   */
  private async countKnown(id: string): Promise<void> {
    const up = this.pending.get(id)?.up;
    const ids = new Set([...(Array.isArray(up) ? up.map(([member]) => member) : []), ...(this.owed.get(id) ?? [])]);
    this.owed.delete(id);
    if (ids.size === 0) return;
    for (const doc of await this.stack.storage.getMany([...ids])) if (doc) this.count(doc);
  }

  /** A stored document owing a transaction not pending here (most are long shown: only the latest are kept). */
  private remember(txId: string, docId: string): void {
    const members = this.owed.get(txId) ?? new Set<string>();
    this.owed.delete(txId); // re-inserted last: the oldest go first
    this.owed.set(txId, members.add(docId));
    if (this.owed.size > OWED_KEPT) this.owed.delete(this.owed.keys().next().value!);
  }

  /** The pending transactions this stored revision is a member of. */
  private pendingOf(doc: Doc): string[] {
    const found = named(doc).filter((id) => this.pending.has(id));
    const listed = this.listed.get(doc._id);
    if (listed) for (const [id, gen] of listed) if (generation(doc._rev) >= gen && this.pending.has(id) && !found.includes(id)) found.push(id);
    return found;
  }

  private count(doc: Doc): string[] {
    const ids = this.pendingOf(doc);
    // the class of an active document this transaction hides (its stamp names it), for counts
    const className = doc.active !== false && typeof doc['~class'] === 'string' ? doc['~class'] : null;
    const names = named(doc);
    for (const id of ids) this.pending.get(id)!.counted.set(doc._id, names.includes(id) ? className : null);
    return ids;
  }

  /** Members waited for: all, or under filtered syncs those of the classes pulled (when the stamp says them). */
  private expected(entry: Pending): number {
    if (!Array.isArray(this.receiving) || !entry.by) return entry.size;
    return this.receiving.reduce((sum, name) => sum + (Number(entry.by![name]) || 0), 0);
  }

  /** Resolves every pending transaction whose members are all accounted for; true when one was. */
  private settleAll(): Promise<boolean> {
    return this.settle([...this.pending.keys()]);
  }

  /** Resolves those of these pending transactions whose members are all accounted for; true when one was. */
  private async settle(ids: readonly string[]): Promise<boolean> {
    let resolved = false;
    for (const id of ids) {
      const entry = this.pending.get(id);
      if (!entry) continue;
      const refusedOnly = entry.refused.filter((m) => !entry.counted.has(m.id)).length;
      if (entry.counted.size + refusedOnly < this.expected(entry)) continue;
      await this.resolve(id, entry);
      resolved = true;
    }
    return resolved;
  }

  /** Shows a transaction's members; one resolved without some is listed and announced. */
  private async resolve(id: string, entry: Pending, code?: string): Promise<void> {
    this.pending.delete(id);
    // the `change` events of its members fired while they were hidden: a live view reads again on this
    this.stack.emit('tx:shown', { id, members: [...entry.counted.keys()] });
    for (const [member] of Array.isArray(entry.up) ? entry.up : []) {
      const listed = this.listed.get(member);
      listed?.delete(id);
      if (listed?.size === 0) this.listed.delete(member);
    }
    const missing = entry.refused.filter((m) => !entry.counted.has(m.id));
    // shown without the members of classes not pulled here: one arriving later (a wider sync) shows at once
    if (code === undefined && entry.counted.size + missing.length < entry.size) this.short.add(id);
    if (missing.length === 0 && code === undefined) return;
    const record: IncompleteTransaction = { id, missing, seq: (await this.stack.storage.info()).updateSeq, at: new Date(this.stack.clock.now()).toISOString() };
    if (code !== undefined && missing.length === 0) record.missing = [{ id: '', code, reason: `${entry.counted.size} of ${entry.size} members had arrived when it was released.` }];
    this.incomplete[id] = record;
    this.stack.emit('tx:incomplete', record);
  }

  private persist(): Promise<void> {
    const run = this.tail.then(async () => {
      const pending = Object.fromEntries([...this.pending].map(([id, e]): [string, PendingRecord] => [id, { size: e.size, ...(e.by ? { by: e.by } : {}), ...(e.up ? { up: e.up } : {}), refused: e.refused, since: e.since }]));
      const body: Omit<ArrivalsDoc, '_id' | '_rev'> = { pending, incomplete: this.incomplete, ...(this.receiving ? { receives: this.receiving } : {}), ...(this.short.size > 0 ? { short: [...this.short] } : {}) };
      this.rev = await this.stack.storage.put<ArrivalsDoc>({ _id: ARRIVALS_ID, ...(this.rev ? { _rev: this.rev } : {}), ...body });
      await this.publish();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The peers' view of what was resolved without some members: ids only (no reasons: they may name key values). */
  private async publish(): Promise<void> {
    const txs = Object.fromEntries(Object.values(this.incomplete).map((t) => [t.id, { seq: t.seq, missing: t.missing.map((m) => m.id).filter(Boolean) }]));
    const current = await this.stack.storage.get<{ _id: string; _rev: string; txs: unknown }>(INCOMPLETE_ID);
    if (current && JSON.stringify(current.txs) === JSON.stringify(txs)) return;
    if (!current && Object.keys(txs).length === 0) return;
    await this.stack.storage.put({ _id: INCOMPLETE_ID, ...(current ? { _rev: current._rev } : {}), txs });
  }
}

/** The transactions a stored revision's own stamp names: the one that wrote it and those it owes. */
function named(doc: Doc): string[] {
  const stamp = stampOf(doc);
  if (!stamp) return [];
  const ids = Array.isArray(stamp.owes) ? stamp.owes.filter((id) => typeof id === 'string') : [];
  return typeof stamp.id === 'string' ? [stamp.id, ...ids] : ids;
}

/** What a pending transaction keeps of the stamp that started it (a peer's `up` list longer than a commit writes is ignored). */
function recordOf(stamp: TxStamp): PendingRecord {
  const by = stamp.by !== null && typeof stamp.by === 'object' && !Array.isArray(stamp.by) ? stamp.by : undefined;
  const up = Array.isArray(stamp.up) && stamp.up.length <= UP_LISTED ? stamp.up.filter((e) => Array.isArray(e) && typeof e[0] === 'string') : undefined;
  return { size: Number(stamp.size), ...(by ? { by } : {}), ...(up ? { up } : {}) };
}

/** Whether a pull that read a peer's changes up to `pulledTo` passed that peer's sequence `seq`. */
function reached(pulledTo: unknown, seq: unknown): boolean {
  const n = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? Number.parseInt(v, 10) : NaN);
  const to = n(pulledTo);
  const at = n(seq);
  return Number.isFinite(to) && Number.isFinite(at) && to >= at;
}
