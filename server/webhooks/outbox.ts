import type { ClientStack, Doc } from '../../index.js';
import type { EndpointDoc, Operation } from './endpoints.js';
import { DELIVERY_CLASS, deliveryIds, type DeliveryDoc, type DeliveryStore, EVENT_TYPES } from './deliveries.js';

const CHECKPOINT_ID = '_local/~webhooks-outbox';
const PAGE = 200;

interface Checkpoint {
  _id: string;
  _rev?: string;
  seq: number | string;
}

/** create, update or delete (a soft delete: `active` false), read from the stored revision. */
function operationOf(doc: Doc, rev: string): Operation {
  if (doc.active === false) return 'delete';
  return rev.startsWith('1-') ? 'create' : 'update';
}

const wants = (endpoint: EndpointDoc, className: string, op: Operation) =>
  !endpoint.disabled && endpoint.operations.includes(op) && (endpoint.classes.includes('*') || endpoint.classes.includes(className));

/**
 * The outbox: reads the store's changes feed from its `_local` checkpoint and writes one delivery
 * per change and interested endpoint, then moves the checkpoint. Deliveries have ids made from
 * the change, so reading a page again after a crash writes nothing twice; nothing is lost either,
 * since the checkpoint moves only after the page's deliveries are stored. Documents of the
 * engine (`~…`, `_…`) are never sent; a purge (a real delete) is not a change to announce.
 */
export class Outbox {
  private running: Promise<void> | null = null;
  private again = false;
  /** the stored checkpoint as this outbox (its only writer) last read or wrote it */
  private current: Checkpoint | null = null;

  constructor(
    private readonly stack: ClientStack,
    private readonly deliveries: DeliveryStore,
    private readonly endpoints: () => EndpointDoc[],
    private readonly queued: (doc: DeliveryDoc) => void,
  ) {}

  /** Reads what is new; calls while a read runs make it read once more after. */
  pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.drain();
        } while (this.again && this.stack.isOpen);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async checkpoint(): Promise<Checkpoint> {
    if (this.current) return this.current;
    const stored = await this.stack.storage.get<Checkpoint>(CHECKPOINT_ID);
    if (stored) return (this.current = stored);
    // the first start: what is stored already was never promised to anyone
    const { updateSeq } = await this.stack.storage.info();
    return this.save({ _id: CHECKPOINT_ID, seq: updateSeq });
  }

  /** Moves the checkpoint (a conflict — another writer — is thrown and the stored one read again next time). */
  private async save(next: Checkpoint): Promise<Checkpoint> {
    try {
      return (this.current = { ...next, _rev: await this.stack.storage.put(next) });
    } catch (err) {
      this.current = null;
      throw err;
    }
  }

  private async drain(): Promise<void> {
    let checkpoint = await this.checkpoint();
    if (await this.skipUnwanted(checkpoint)) return;
    while (this.stack.isOpen) {
      const page = await this.stack.storage.changes({ since: checkpoint.seq, limit: PAGE });
      if (page.results.length === 0) return;
      const endpoints = this.endpoints().filter((e) => !e.disabled);
      if (endpoints.length > 0) await this.write(page.results, endpoints);
      checkpoint = await this.save({ ...checkpoint, seq: page.lastSeq });
    }
  }

  /**
   * With no enabled endpoint, what was written so far is promised to no one: the checkpoint moves
   * to the store's update sequence without reading the feed (reading a change costs the store two
   * reads; a push of 10,000 documents would cost 20,000 for nothing). The sequence is read before
   * the endpoints are looked at, so an endpoint registered meanwhile still gets the changes after it.
   */
  private async skipUnwanted(checkpoint: Checkpoint): Promise<boolean> {
    const { updateSeq } = await this.stack.storage.info();
    if (this.endpoints().some((e) => !e.disabled)) return false;
    if (updateSeq !== checkpoint.seq && this.stack.isOpen) await this.save({ ...checkpoint, seq: updateSeq });
    return true;
  }

  private async write(changes: Array<{ id: string; seq: number | string; deleted: boolean; rev: string }>, endpoints: EndpointDoc[]): Promise<void> {
    const relevant = changes.filter((c) => !c.deleted && !c.id.startsWith('~') && !c.id.startsWith('_'));
    const docs = await this.stack.storage.getMany(relevant.map((c) => c.id));
    const now = new Date(this.stack.clock.now()).toISOString();
    for (let i = 0; i < relevant.length; i++) {
      const doc = docs[i];
      const change = relevant[i];
      if (!doc || typeof doc['~class'] !== 'string' || doc._rev !== change.rev) continue; // changed again: its own change follows
      const op = operationOf(doc, change.rev);
      for (const endpoint of endpoints) {
        if (!wants(endpoint, doc['~class'], op)) continue;
        const { id, webhookId } = deliveryIds(change.seq, endpoint._id, doc._id, change.rev);
        const type = EVENT_TYPES[op];
        const timestamp = (doc['~updateTimestamp'] as string | undefined) ?? doc['~createTimestamp'] ?? now;
        const delivery: DeliveryDoc = {
          _id: id,
          '~class': DELIVERY_CLASS,
          endpointId: endpoint._id,
          webhookId,
          type,
          className: doc['~class'],
          docId: doc._id,
          rev: change.rev,
          body: JSON.stringify({ type, timestamp, data: { className: doc['~class'], id: doc._id, rev: change.rev, doc } }),
          status: 'pending',
          attempts: 0,
          nextAttemptAt: this.stack.clock.now(),
          createdAt: now,
          updatedAt: now,
        };
        if (await this.deliveries.add(delivery)) this.queued(delivery);
      }
    }
  }
}
