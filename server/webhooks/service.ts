import type { EventEmitter } from 'events';
import type { ClientStack } from '../../index.js';
import type { Logger } from '../context.js';
import type { SecretStore } from '../secrets/store.js';
import { DeliveryStore } from './deliveries.js';
import { checkEndpointInput, ENDPOINT_CLASS, type EndpointDoc, EndpointStore, signingSecretName } from './endpoints.js';
import type { WebhookOptions } from './options.js';
import { Outbox } from './outbox.js';
import { Sender } from './sender.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/**
 * Webhooks of one stack (server only): the endpoints admins register, the outbox fed by the
 * changes feed, the sender. Started when the node's stack opens, stopped before it closes.
 */
export class Webhooks {
  readonly endpointStore: EndpointStore;
  readonly deliveries: DeliveryStore;
  private readonly outbox: Outbox;
  private readonly sender: Sender;
  private endpoints = new Map<string, EndpointDoc>();
  private timer: NodeJS.Timeout | null = null;
  private readonly onChange = () => void this.pump();

  constructor(
    private readonly stack: ClientStack,
    private readonly secrets: SecretStore,
    private readonly options: WebhookOptions,
    events: EventEmitter,
    private readonly log: Logger,
  ) {
    this.endpointStore = new EndpointStore(stack);
    this.deliveries = new DeliveryStore(stack);
    this.sender = new Sender({
      stack,
      deliveries: this.deliveries,
      endpoints: this.endpointStore,
      endpointById: (id) => this.endpoints.get(id),
      endpointChanged: (doc) => this.endpoints.set(doc._id, doc),
      secrets,
      options,
      events,
      log,
    });
    this.outbox = new Outbox(stack, this.deliveries, () => [...this.endpoints.values()], (doc) => this.sender.add(doc));
  }

  async start(): Promise<void> {
    await this.reload();
    await this.sender.start();
    // a write of this stack wakes the outbox at once; the timer catches anything else
    this.stack.on('change', this.onChange);
    const tick = () => {
      this.timer = setTimeout(() => void this.pump().finally(() => this.timer && tick()), this.options.pollMs);
    };
    tick();
    await this.pump();
  }

  async stop(): Promise<void> {
    this.stack.off('change', this.onChange);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.outbox.pump().catch(() => undefined);
    await this.sender.stop();
  }

  /** Deliveries not yet delivered nor dead-lettered, as this node knows them. */
  get pending(): number {
    return this.sender.pending;
  }

  private pump(): Promise<void> {
    return this.stack.isOpen ? this.outbox.pump().catch((err) => this.log(`webhook: the outbox could not read the changes: ${JSON.stringify((err as Error).message)}`)) : Promise.resolve();
  }

  private async reload(): Promise<void> {
    this.endpoints = new Map((await this.endpointStore.list()).map((e) => [e._id, e]));
  }

  list(): EndpointDoc[] {
    return [...this.endpoints.values()];
  }

  get(id: string): EndpointDoc {
    const endpoint = this.endpoints.get(id);
    if (!endpoint) throw SERVER_ERRORS.webhookNotFound(`There is no webhook endpoint ${JSON.stringify(id)}.`);
    return endpoint;
  }

  async register(input: unknown): Promise<EndpointDoc> {
    const { fields, secret } = checkEndpointInput(input, false);
    const now = new Date(this.stack.clock.now()).toISOString();
    const id = `${ENDPOINT_CLASS}-${globalThis.crypto.randomUUID()}`;
    await this.secrets.set(signingSecretName(id), secret!);
    const doc = await this.endpointStore.put({ _id: id, '~class': ENDPOINT_CLASS, secretHeaders: {}, disabled: false, ...fields, createdAt: now, updatedAt: now } as EndpointDoc);
    this.endpoints.set(id, doc);
    return doc;
  }

  async update(id: string, input: unknown): Promise<EndpointDoc> {
    const previous = this.get(id);
    const { fields, secret } = checkEndpointInput(input, true);
    if (secret) await this.secrets.set(signingSecretName(id), secret);
    const enabled = fields.disabled === false;
    const { disabledReason: _r, ...kept } = previous;
    const doc = await this.endpointStore.put({ ...(enabled ? kept : previous), ...fields, updatedAt: new Date(this.stack.clock.now()).toISOString() });
    this.endpoints.set(id, doc);
    return doc;
  }

  async remove(id: string): Promise<void> {
    const previous = this.get(id);
    await this.endpointStore.remove(previous);
    await this.secrets.remove(signingSecretName(id)).catch(() => false);
    this.endpoints.delete(id);
  }

  /** Sends a dead-lettered delivery again (attempts start over). */
  async retry(deliveryId: string) {
    const delivery = await this.deliveries.get(deliveryId);
    if (!delivery) throw SERVER_ERRORS.webhookNotFound(`There is no delivery ${JSON.stringify(deliveryId)}.`);
    if (delivery.status !== 'dead') return delivery;
    const now = this.stack.clock.now();
    const again = await this.deliveries.update({ ...delivery, status: 'pending', attempts: 0, nextAttemptAt: now, updatedAt: new Date(now).toISOString() });
    this.sender.add(again);
    return again;
  }
}
