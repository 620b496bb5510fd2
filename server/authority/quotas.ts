import { type ClientStack, type Doc, type WriteContext } from '../../index.js';
import { byteLengthOf } from '../../kit/index.js';
import type { Caller } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { OwnerRecords } from './owner-records.js';
import { ensureQuotaClass, QUOTA_CLASS, usageKey, UsageStore, type QuotaDoc, type Usage } from './quota-store.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/** A write's change to the usage of its owner and tenant, held until it is stored or given up. */
interface Reservation {
  docId: string;
  keys: string[];
  docs: number;
  bytes: number;
  at: number;
}

/** A reservation whose write never reported back (a pipeline write that failed) is dropped after this. */
const RESERVATION_TTL_MS = 60_000;

/** The caller a write carries: the node's sessions (a peer's push, an HTTP route) hold `{ caller }`. */
export function callerOfSession(session: unknown): Caller | null {
  const caller = (session as { caller?: Partial<Caller> } | null | undefined)?.caller;
  return caller && typeof caller.userId === 'string' ? (caller as Caller) : null;
}

/** Quotas count documents of application classes only (not the engine's `~` classes nor the schema). */
const counted = (className: unknown): className is string => typeof className === 'string' && className !== '' && !className.startsWith('~') && className !== 'class' && className !== 'domain';

/**
 * A document's weight: its JSON (revisions aside) plus the bytes of its attachments — a new
 * file's data (base64 text counted decoded, or bytes), a kept one's stored length (its stub).
 */
function sizeOf(doc: Record<string, unknown>): number {
  const { _rev: _r, _revisions: _v, _attachments: attachments, ...rest } = doc;
  let bytes = Buffer.byteLength(JSON.stringify(rest));
  if (attachments && typeof attachments === 'object') {
    for (const entry of Object.values(attachments as Record<string, { data?: unknown; length?: unknown }>)) {
      const length = entry?.data !== undefined ? byteLengthOf(entry.data) : typeof entry?.length === 'number' ? entry.length : 0;
      bytes += length ?? 0;
    }
  }
  return bytes;
}

/**
 * Quotas per user and per tenant (server/authority): maximum documents and bytes, optionally per
 * class, stored as `~Quota` documents. Usage is counted as writes are stored (afterWrite), not by
 * scanning: a write moves the counters by the difference between its revision and the previous
 * one; a document a user created through the node has a `_local/~quota/doc/<id>` record naming
 * that owner, so its updates and deletes move the owner's counters. Checks reserve what they let
 * through, so concurrent writes cannot overshoot a limit together.
 */
/** The quotas serving each opened stack: the admission tap (server/replication/admission.ts) finds them here. */
export const quotasByStack = new WeakMap<ClientStack, Quotas>();

/** The quotas of one stack (a tenant's): its limits, its counters, the shares reserved by writes in flight. */
export class Quotas {
  private limits = new Map<string, QuotaDoc>();
  private readonly usage: UsageStore;
  private readonly reservations = new Map<string, Reservation>();
  private readonly pending = new Map<string, Usage>();
  private readonly owners: OwnerRecords;

  private constructor(
    private readonly ctx: NodeContext,
    stack: ClientStack,
    /** the tenant name its `tenant` quotas key on: the stack's name for the default stack */
    readonly tenant: string,
    /** where the `~Quota` documents live: the default stack, where admins set them for every tenant */
    private readonly limitsSource: () => ClientStack,
  ) {
    this.usage = new UsageStore(stack);
    this.owners = new OwnerRecords(stack, (err) => this.ctx.log(`quotas: owner records could not be saved: ${JSON.stringify(err.message)}`));
  }

  /**
   * Once per opened stack: the quota class, limits and counters loaded, usage counted from now
   * on. A tenant stack (server/tenants) names its tenant; its limits are read from the default stack.
   */
  static async attach(ctx: NodeContext, stack: ClientStack, tenant?: string): Promise<Quotas> {
    const known = quotasByStack.get(stack);
    if (known) return known;
    const quotas = new Quotas(ctx, stack, tenant ?? stack.name, tenant === undefined ? () => stack : () => ctx.stack());
    quotasByStack.set(stack, quotas);
    await ensureQuotaClass(stack);
    await quotas.usage.load();
    await quotas.reloadLimits();
    quotas.tap(stack);
    return quotas;
  }

  private tap(stack: ClientStack): void {
    stack.hooks.afterWrite.tapPromise({ name: 'node-quotas', stage: -200 }, async (docs, ctx) => {
      for (const doc of docs) await this.count(stack, doc, ctx);
    });
    stack.hooks.onClose.tapPromise({ name: 'node-quotas', stage: 100 }, () => this.flush());
    // writes through the pipeline that carry a caller (the HTTP document API, private routes)
    stack.hooks.validate.tapPromise({ name: 'node-quotas', stage: 100 }, async (draft, ctx) => {
      if (ctx.dryRun || ctx.origin === 'replication') return;
      const caller = callerOfSession(ctx.session);
      if (caller) await this.admit(stack, draft, ctx.previous ?? null, caller);
    });
  }

  async reloadLimits(): Promise<void> {
    const docs = (await this.limitsSource().findDocuments(QUOTA_CLASS)) as unknown as QuotaDoc[];
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
    const live = doc.active !== false && doc._deleted !== true;
    const wasLive = previous ? previous.active !== false : false;
    const docs = (live ? 1 : 0) - (wasLive ? 1 : 0);
    const bytes = (live ? sizeOf(doc) : 0) - (wasLive ? sizeOf(previous!) : 0);
    if (docs <= 0 && bytes <= 0) return;
    const owner = previous ? await this.owners.ownerOf(docId) : caller.userId || null;
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
        throw SERVER_ERRORS.quotaExceeded(`Quota exceeded for ${whose}${limit.className ? ` (class ${limit.className})` : ''}: ${what} used; ${docId} needs ${overDocs ? '1 more document' : `${bytes} more bytes`}.`, {
          details: { quota: key, usage: used, maxDocs: limit.maxDocs ?? null, maxBytes: limit.maxBytes ?? null },
        });
      }
    }
    this.reserve({ docId, keys, docs, bytes, at: stack.clock.now() });
  }

  /** Gives back the reservations of documents a push did not store, and saves the counters (before the push is answered). */
  async settle(docIds: readonly string[]): Promise<void> {
    for (const id of docIds) this.unreserve(id);
    await this.flush();
  }

  /** The counters and owner records saved as they are now (a write's counting saves them in the background). */
  async flush(): Promise<void> {
    await this.owners.flush();
    await this.usage.save();
  }

  /**
   * A stored write: its owner's and tenant's counters move by what it changed (sizes from the
   * stored revisions: this one and `ctx.previous`). A document created by a user through the node
   * gets an owner record, read again when it is updated or deleted.
   */
  private async count(stack: ClientStack, doc: Doc, ctx: WriteContext): Promise<void> {
    const className = ctx.classModel.name;
    if (!counted(className)) return;
    const { previous } = ctx;
    let owner: string | null;
    if (previous) owner = await this.owners.ownerOf(doc._id);
    else {
      owner = callerOfSession(ctx.session)?.userId || null;
      if (owner) this.owners.record(doc._id, owner);
    }
    const live = doc.active !== false;
    const wasLive = previous ? previous.active !== false : false;
    const docDelta = (live ? 1 : 0) - (wasLive ? 1 : 0);
    const byteDelta = (live ? sizeOf(doc) : 0) - (wasLive ? sizeOf(previous!) : 0);
    for (const key of this.keysOf(stack, className, owner)) this.usage.add(key, docDelta, byteDelta);
    this.unreserve(doc._id);
    this.usage.saveSoon((err) => this.ctx.log(`quotas: the usage counters could not be saved: ${JSON.stringify(err.message)}`));
  }

  /**
   * Counts the usage again from the stored documents (an admin's repair after a crash left the
   * counters behind): one pass over every application class. Writes made meanwhile may be missed:
   * run it when the node is quiet.
   */
  async recount(stack: ClientStack): Promise<void> {
    const counters = new Map<string, Usage>();
    for (const className of await stack.listClasses()) {
      if (!counted(className)) continue;
      for await (const page of stack.storage.classPages(className)) {
        for (const doc of page) {
          if (doc['~class'] !== className || doc.active === false) continue;
          const owner = await this.owners.ownerOf(doc._id);
          for (const key of this.keysOf(stack, className, owner)) {
            const usage = counters.get(key) ?? { docs: 0, bytes: 0 };
            counters.set(key, { docs: usage.docs + 1, bytes: usage.bytes + sizeOf(doc) });
          }
        }
      }
    }
    this.usage.replace(counters);
    await this.usage.save();
  }

  private keysOf(stack: ClientStack, className: string, owner: string | null): string[] {
    const tenant = this.tenant;
    const keys = [usageKey('tenant', tenant), usageKey('tenant', tenant, className)];
    if (owner) keys.push(usageKey('user', owner), usageKey('user', owner, className));
    return keys;
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
