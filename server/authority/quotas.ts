import { DocstackError, type ClientStack, type Doc, type WriteContext } from '../../index.js';
import type { Caller } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { ensureQuotaClass, QUOTA_CLASS, usageKey, UsageStore, type QuotaDoc, type Usage } from './quota-store.js';

/** A write's change to the usage of its owner and tenant, held until it is stored or given up. */
interface Reservation {
  docId: string;
  keys: string[];
  docs: number;
  bytes: number;
  at: number;
}

interface OwnerRecord {
  _id: string;
  _rev?: string;
  owner: string | null;
  bytes: number;
  live: boolean;
}

const OWNER_PREFIX = '_local/~quota/doc/';
/** A reservation whose write never reported back (a pipeline write that failed) is dropped after this. */
const RESERVATION_TTL_MS = 60_000;

/** The caller a write carries: the node's sessions (a peer's push, an HTTP route) hold `{ caller }`. */
export function callerOfSession(session: unknown): Caller | null {
  const caller = (session as { caller?: Partial<Caller> } | null | undefined)?.caller;
  return caller && typeof caller.userId === 'string' ? (caller as Caller) : null;
}

/** Quotas count documents of application classes only (not the engine's `~` classes nor the schema). */
const counted = (className: unknown): className is string => typeof className === 'string' && className !== '' && !className.startsWith('~') && className !== 'class' && className !== 'domain';

function sizeOf(doc: Record<string, unknown>): number {
  const { _rev: _r, _revisions: _v, ...rest } = doc;
  return Buffer.byteLength(JSON.stringify(rest));
}

/**
 * Quotas per user and per tenant (server/authority): maximum documents and bytes, optionally per
 * class, stored as `~Quota` documents. Usage is counted as writes are stored (afterWrite), not by
 * scanning: per document a `_local/~quota/doc/<id>` record keeps its owner (the user who created
 * it through the node) and its counted size, so an update or a delete changes the right counters.
 * Checks reserve what they let through, so concurrent writes cannot overshoot a limit together.
 */
/** The quotas serving each opened stack: the admission tap (server/replication/admission.ts) finds them here. */
export const quotasByStack = new WeakMap<ClientStack, Quotas>();

/** The quotas of one stack (a tenant's): its limits, its counters, the shares reserved by writes in flight. */
export class Quotas {
  private limits = new Map<string, QuotaDoc>();
  private readonly usage: UsageStore;
  private readonly reservations = new Map<string, Reservation>();
  private readonly pending = new Map<string, Usage>();

  private constructor(
    private readonly ctx: NodeContext,
    stack: ClientStack,
  ) {
    this.usage = new UsageStore(stack);
  }

  /** Once per opened stack: the quota class, limits and counters loaded, usage counted from now on. */
  static async attach(ctx: NodeContext, stack: ClientStack): Promise<Quotas> {
    const known = quotasByStack.get(stack);
    if (known) return known;
    const quotas = new Quotas(ctx, stack);
    quotasByStack.set(stack, quotas);
    await ensureQuotaClass(stack);
    await quotas.usage.load();
    await quotas.reloadLimits(stack);
    quotas.tap(stack);
    return quotas;
  }

  private tap(stack: ClientStack): void {
    stack.hooks.afterWrite.tapPromise({ name: 'node-quotas', stage: -200 }, async (docs, ctx) => {
      for (const doc of docs) await this.count(stack, doc, ctx);
    });
    // writes through the pipeline that carry a caller (the HTTP document API, private routes)
    stack.hooks.validate.tapPromise({ name: 'node-quotas', stage: 100 }, async (draft, ctx) => {
      if (ctx.dryRun || ctx.origin === 'replication') return;
      const caller = callerOfSession(ctx.session);
      if (caller) await this.admit(stack, draft, ctx.previous ?? null, caller);
    });
  }

  async reloadLimits(stack: ClientStack): Promise<void> {
    const docs = (await stack.findDocuments(QUOTA_CLASS)) as unknown as QuotaDoc[];
    this.limits = new Map(docs.map((q) => [q.key, q]));
  }

  list(): QuotaDoc[] {
    return [...this.limits.values()];
  }

  usageOf(key: string): Usage {
    return this.usage.get(key);
  }

  /**
   * Refuses a write that would take its owner or its tenant past a limit (DS_QUOTA_EXCEEDED, 403,
   * the usage in the reason); else reserves its share. Deletes and shrinking writes always pass.
   */
  async admit(stack: ClientStack, doc: Record<string, unknown>, previous: Doc | null, caller: Caller): Promise<void> {
    const className = (doc['~class'] ?? previous?.['~class']) as unknown;
    if (!counted(className) || this.limits.size === 0) return;
    const docId = String(doc._id);
    const before = await this.recordOf(stack, docId, previous);
    const live = doc.active !== false && doc._deleted !== true;
    const docs = (live ? 1 : 0) - (before.live ? 1 : 0);
    const bytes = (live ? sizeOf(doc) : 0) - (before.live ? before.bytes : 0);
    if (docs <= 0 && bytes <= 0) return;
    const owner = previous ? before.owner : caller.userId || null;
    const keys = this.keysOf(stack, className, owner);
    this.dropExpired(stack.clock.now());
    for (const key of keys) {
      const limit = this.limits.get(key);
      if (!limit) continue;
      const stored = this.usageOf(key);
      const held = this.pending.get(key) ?? { docs: 0, bytes: 0 };
      // what is stored plus what writes in progress were let through
      const used = { docs: stored.docs + held.docs, bytes: stored.bytes + held.bytes };
      const overDocs = limit.maxDocs !== undefined && docs > 0 && used.docs + docs > limit.maxDocs;
      const overBytes = limit.maxBytes !== undefined && bytes > 0 && used.bytes + bytes > limit.maxBytes;
      if (overDocs || overBytes) {
        const what = overDocs ? `${used.docs} of ${limit.maxDocs} documents` : `${used.bytes} of ${limit.maxBytes} bytes`;
        const whose = limit.scope === 'user' ? `user ${caller.username || limit.subject}` : `tenant ${limit.subject}`;
        const event = { id: docId, className, quota: key, scope: limit.scope, subject: limit.subject, usage: used, maxDocs: limit.maxDocs ?? null, maxBytes: limit.maxBytes ?? null, user: caller.username };
        this.ctx.events.emit('quota:exceeded', event);
        throw new DocstackError('DS_QUOTA_EXCEEDED', `Quota exceeded for ${whose}${limit.className ? ` (class ${limit.className})` : ''}: ${what} used; ${docId} needs ${overDocs ? '1 more document' : `${bytes} more bytes`}.`, {
          details: { quota: key, usage: used, maxDocs: limit.maxDocs ?? null, maxBytes: limit.maxBytes ?? null },
        });
      }
    }
    this.reserve({ docId, keys, docs, bytes, at: stack.clock.now() });
  }

  /** Gives back the reservations of documents a push did not store (called when the push is answered). */
  settle(docIds: readonly string[]): void {
    for (const id of docIds) this.unreserve(id);
  }

  /** A stored write: its owner's and tenant's counters move, its record follows, the counters are saved. */
  private async count(stack: ClientStack, doc: Doc, ctx: WriteContext): Promise<void> {
    const className = ctx.classModel.name;
    if (!counted(className)) return;
    const before = await this.recordOf(stack, doc._id, ctx.previous ?? null);
    const caller = callerOfSession(ctx.session);
    const owner = ctx.previous || before._rev ? before.owner : (caller?.userId ?? null) || null;
    const live = doc.active !== false;
    const bytes = live ? sizeOf(doc) : 0;
    const docDelta = (live ? 1 : 0) - (before.live ? 1 : 0);
    const byteDelta = bytes - (before.live ? before.bytes : 0);
    for (const key of this.keysOf(stack, className, owner)) this.usage.add(key, docDelta, byteDelta);
    this.unreserve(doc._id);
    await stack.storage.put({ _id: `${OWNER_PREFIX}${doc._id}`, ...(before._rev ? { _rev: before._rev } : {}), owner, bytes, live });
    await this.usage.save();
  }

  private keysOf(stack: ClientStack, className: string, owner: string | null): string[] {
    const tenant = stack.name;
    const keys = [usageKey('tenant', tenant), usageKey('tenant', tenant, className)];
    if (owner) keys.push(usageKey('user', owner), usageKey('user', owner, className));
    return keys;
  }

  /** What the document counted for so far: its record, else (a document from before quotas) its stored revision, unowned. */
  private async recordOf(stack: ClientStack, docId: string, previous: Doc | null): Promise<OwnerRecord> {
    const record = await stack.storage.get<OwnerRecord>(`${OWNER_PREFIX}${docId}`);
    if (record) return record;
    return { _id: `${OWNER_PREFIX}${docId}`, owner: null, bytes: previous ? sizeOf(previous) : 0, live: previous ? previous.active !== false : false };
  }

  private reserve(reservation: Reservation): void {
    this.unreserve(reservation.docId);
    this.reservations.set(reservation.docId, reservation);
    for (const key of reservation.keys) {
      const held = this.pending.get(key) ?? { docs: 0, bytes: 0 };
      this.pending.set(key, { docs: held.docs + reservation.docs, bytes: held.bytes + reservation.bytes });
    }
  }

  private unreserve(docId: string): void {
    const reservation = this.reservations.get(docId);
    if (!reservation) return;
    this.reservations.delete(docId);
    for (const key of reservation.keys) {
      const held = this.pending.get(key)!;
      this.pending.set(key, { docs: held.docs - reservation.docs, bytes: held.bytes - reservation.bytes });
    }
  }

  private dropExpired(now: number): void {
    for (const reservation of [...this.reservations.values()]) if (now - reservation.at > RESERVATION_TTL_MS) this.unreserve(reservation.docId);
  }
}
