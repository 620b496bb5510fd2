import { createHash } from 'node:crypto';
import type { ClientStack } from '../../index.js';
import type { Operation } from './endpoints.js';

export const DELIVERY_CLASS = '~WebhookDelivery';
export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'dead';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying', 'delivered', 'dead'];

/** One message to one endpoint, written before it is sent (the outbox): server-private. */
export interface DeliveryDoc {
  _id: string;
  _rev?: string;
  '~class': typeof DELIVERY_CLASS;
  endpointId: string;
  /** the Standard Webhooks message id: the same on every attempt, so receivers deduplicate */
  webhookId: string;
  /** `document.created` | `document.updated` | `document.deleted` */
  type: string;
  className: string;
  docId: string;
  rev: string;
  /** the exact JSON text sent and signed */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** ms since the epoch (the stack's clock) */
  nextAttemptAt: number;
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

export const EVENT_TYPES: Record<Operation, string> = { create: 'document.created', update: 'document.updated', delete: 'document.deleted' };

/**
 * The id of the delivery of a change to an endpoint, the same however often the outbox reads that
 * change (a crash between writing deliveries and moving the checkpoint writes none twice); its
 * first part is the change's sequence, so deliveries list in the order of the feed.
 */
export function deliveryIds(seq: number | string, endpointId: string, docId: string, rev: string): { id: string; webhookId: string } {
  const hash = createHash('sha256').update(`${endpointId}\n${docId}\n${rev}`).digest('base64url').slice(0, 27);
  const order = typeof seq === 'number' ? String(seq).padStart(12, '0') : createHash('sha256').update(String(seq)).digest('hex').slice(0, 12);
  return { id: `${DELIVERY_CLASS}-${order}-${hash}`, webhookId: `msg_${hash}` };
}

/** What the admin API shows of a delivery (the body is the receiver's, not listed). */
export function publicDelivery(doc: DeliveryDoc) {
  const { _rev: _r, '~class': _c, body: _b, _id, ...rest } = doc;
  return { id: _id, ...rest };
}

export class DeliveryStore {
  constructor(private readonly stack: ClientStack) {}

  get(id: string): Promise<DeliveryDoc | null> {
    return id.startsWith(`${DELIVERY_CLASS}-`) ? this.stack.storage.get<DeliveryDoc>(id) : Promise.resolve(null);
  }

  /** Writes a new delivery (setting its `_rev`); false when it is there already (the outbox read that change before). */
  async add(doc: DeliveryDoc): Promise<boolean> {
    try {
      doc._rev = await this.stack.storage.put(doc);
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 409) return false;
      throw err;
    }
  }

  async update(doc: DeliveryDoc): Promise<DeliveryDoc> {
    const rev = await this.stack.storage.put(doc);
    return { ...doc, _rev: rev };
  }

  /** Every delivery still to send (pending or retrying): read once when the sender starts. */
  async *open(): AsyncGenerator<DeliveryDoc> {
    for await (const page of this.stack.storage.pages(`${DELIVERY_CLASS}-`)) {
      for (const doc of page as unknown as DeliveryDoc[]) if (doc.status === 'pending' || doc.status === 'retrying') yield doc;
    }
  }

  /** A page of deliveries in feed order after `after`, filtered by status and endpoint. */
  async list(filter: { status?: DeliveryStatus; endpointId?: string; after?: string; limit: number }): Promise<{ deliveries: DeliveryDoc[]; next: string | null }> {
    const out: DeliveryDoc[] = [];
    let start = filter.after;
    for (;;) {
      const rows = await this.stack.storage.range({ prefix: `${DELIVERY_CLASS}-`, ...(start ? { start, skip: 1 } : {}), includeDocs: true, limit: 500 });
      for (const row of rows) {
        const doc = row.doc as unknown as DeliveryDoc;
        if ((filter.status && doc.status !== filter.status) || (filter.endpointId && doc.endpointId !== filter.endpointId)) continue;
        out.push(doc);
        if (out.length === filter.limit) return { deliveries: out, next: doc._id };
      }
      if (rows.length < 500) return { deliveries: out, next: null };
      start = rows[rows.length - 1].id;
    }
  }
}
