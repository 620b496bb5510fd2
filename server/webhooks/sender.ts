import type { EventEmitter } from 'events';
import { Webhook } from 'standardwebhooks';
import type { ClientStack } from '../../index.js';
import type { Logger } from '../context.js';
import type { SecretReader } from '../secrets/store.js';
import type { DeliveryDoc, DeliveryStore } from './deliveries.js';
import { type EndpointDoc, type EndpointStore, signingSecretName } from './endpoints.js';
import { retryDelay, type WebhookOptions } from './options.js';

interface SenderDeps {
  stack: ClientStack;
  deliveries: DeliveryStore;
  endpoints: EndpointStore;
  endpointById: (id: string) => EndpointDoc | undefined;
  /** an endpoint changed here (a 410 disabled it) */
  endpointChanged: (doc: EndpointDoc) => void;
  secrets: SecretReader;
  options: WebhookOptions;
  events: EventEmitter;
  log: Logger;
}

type Outcome = { ok: true; status: number } | { ok: false; gone?: boolean; status?: number; error: string };

/**
 * Sends the outbox's deliveries: signed (Standard Webhooks), at most `concurrency` at once, each
 * retried with exponential back-off and jitter until it is delivered (2xx) or dead-lettered after
 * `maxAttempts`. A 410 answer disables its endpoint. Every outcome is stored on the delivery
 * before the next attempt, and announced on the node: `webhook:delivered`, `webhook:failed`,
 * `webhook:dead-lettered`, `webhook:disabled`.
 */
export class Sender {
  /** delivery id → when it is due (ms, the stack's clock), and the stored delivery when known (saves a read) */
  private readonly due = new Map<string, { at: number; doc?: DeliveryDoc }>();
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly idle = new Set<() => void>();

  constructor(private readonly deps: SenderDeps) {}

  async start(): Promise<void> {
    for await (const doc of this.deps.deliveries.open()) this.due.set(doc._id, { at: doc.nextAttemptAt, doc });
    this.wake();
  }

  add(doc: DeliveryDoc): void {
    if (this.stopped) return;
    this.due.set(doc._id, { at: doc.nextAttemptAt, doc });
    this.wake();
  }

  /** Pending deliveries (in memory): 0 when everything written was delivered or dead-lettered. */
  get pending(): number {
    return this.due.size + this.inFlight.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.inFlight.size > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  /** Starts what is due (up to the concurrency), then sleeps until the next due time. */
  wake(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = this.deps.stack.clock.now();
    const free = this.deps.options.concurrency - this.inFlight.size;
    const ready = [...this.due].filter(([, d]) => d.at <= now).sort((a, b) => a[1].at - b[1].at).slice(0, Math.max(free, 0));
    for (const [id, { doc }] of ready) {
      this.due.delete(id);
      this.inFlight.add(id);
      void this.attempt(id, doc)
        .catch((err) => this.deps.log(`webhook: delivery ${id} could not be recorded: ${JSON.stringify((err as Error).message)}`))
        .finally(() => {
          this.inFlight.delete(id);
          if (this.inFlight.size === 0) for (const resolve of this.idle) resolve();
          this.wake();
        });
    }
    let next = Infinity;
    for (const d of this.due.values()) next = Math.min(next, d.at);
    const wait = Number.isFinite(next) ? Math.max(0, Math.min(next - now, this.deps.options.pollMs)) : this.deps.options.pollMs;
    if (this.due.size > 0 && this.inFlight.size < this.deps.options.concurrency) this.timer = setTimeout(() => this.wake(), wait);
  }

  private async attempt(id: string, known?: DeliveryDoc): Promise<void> {
    if (!this.deps.stack.isOpen) return;
    const delivery = known ?? (await this.deps.deliveries.get(id));
    if (!delivery || delivery.status === 'delivered' || delivery.status === 'dead') return;
    const endpoint = this.deps.endpointById(delivery.endpointId);
    if (!endpoint || endpoint.disabled) {
      await this.deadLetter(delivery, endpoint ? `the endpoint is disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}` : 'the endpoint was removed');
      return;
    }
    const outcome = await this.send(delivery, endpoint);
    if (this.stopped && !outcome.ok) return; // stopping: the attempt does not count; it is retried at the next start
    const attempts = delivery.attempts + 1;
    const now = this.deps.stack.clock.now();
    const at = new Date(now).toISOString();
    if (outcome.ok) {
      await this.deps.deliveries.update({ ...delivery, status: 'delivered', attempts, lastStatus: outcome.status, updatedAt: at, nextAttemptAt: now });
      this.deps.events.emit('webhook:delivered', { deliveryId: id, webhookId: delivery.webhookId, endpointId: endpoint._id, type: delivery.type, docId: delivery.docId, attempts, status: outcome.status });
      return;
    }
    const failed = { ...delivery, attempts, updatedAt: at, lastError: outcome.error, ...(outcome.status !== undefined ? { lastStatus: outcome.status } : {}) };
    if (outcome.gone) {
      const disabled = await this.deps.endpoints.put({ ...endpoint, disabled: true, disabledReason: 'the receiver answered 410 Gone', updatedAt: at });
      this.deps.endpointChanged(disabled);
      this.deps.events.emit('webhook:disabled', { endpointId: endpoint._id, reason: 'gone' });
      this.deps.log(`webhook: endpoint ${endpoint._id} disabled (its receiver answered 410)`);
      await this.deadLetter(failed, outcome.error);
      return;
    }
    if (attempts >= this.deps.options.maxAttempts) {
      await this.deadLetter(failed, outcome.error);
      return;
    }
    const nextAttemptAt = now + retryDelay(this.deps.options, attempts);
    const retrying = await this.deps.deliveries.update({ ...failed, status: 'retrying', nextAttemptAt });
    this.due.set(id, { at: nextAttemptAt, doc: retrying });
    this.deps.events.emit('webhook:failed', { deliveryId: id, webhookId: delivery.webhookId, endpointId: endpoint._id, type: delivery.type, docId: delivery.docId, attempts, status: outcome.status ?? null, error: outcome.error, nextAttemptAt: new Date(nextAttemptAt).toISOString() });
  }

  private async deadLetter(delivery: DeliveryDoc, reason: string): Promise<void> {
    const at = new Date(this.deps.stack.clock.now()).toISOString();
    await this.deps.deliveries.update({ ...delivery, status: 'dead', lastError: reason, updatedAt: at });
    this.deps.events.emit('webhook:dead-lettered', { deliveryId: delivery._id, webhookId: delivery.webhookId, endpointId: delivery.endpointId, type: delivery.type, docId: delivery.docId, attempts: delivery.attempts, status: delivery.lastStatus ?? null, error: reason });
    this.deps.log(`webhook: delivery ${delivery._id} dead-lettered after ${delivery.attempts} attempt(s): ${JSON.stringify(reason)}`);
  }

  /** One POST, signed; the answer's status decides (its body is not read). */
  private async send(delivery: DeliveryDoc, endpoint: EndpointDoc): Promise<Outcome> {
    const secret = await this.deps.secrets.get(signingSecretName(endpoint._id)).catch(() => null);
    if (!secret) return { ok: false, error: 'the endpoint has no readable signing secret' };
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'docstack-webhooks' };
    for (const [header, name] of Object.entries(endpoint.secretHeaders)) {
      const value = await this.deps.secrets.get(name).catch(() => null);
      if (value === null) return { ok: false, error: `the secret ${JSON.stringify(name)} of header ${header} is not set` };
      headers[header] = value;
    }
    const timestamp = new Date(this.deps.stack.clock.now());
    headers['webhook-id'] = delivery.webhookId;
    headers['webhook-timestamp'] = String(Math.floor(timestamp.getTime() / 1000));
    headers['webhook-signature'] = new Webhook(secret).sign(delivery.webhookId, timestamp, delivery.body);
    try {
      const res = await fetch(endpoint.url, { method: 'POST', headers, body: delivery.body, redirect: 'manual', signal: AbortSignal.timeout(this.deps.options.timeoutMs) });
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
      return { ok: false, gone: res.status === 410, status: res.status, error: `the receiver answered ${res.status}` };
    } catch (err) {
      // the error's name and code only: its message may quote the URL (a token in a query string)
      const e = err as { name?: string; cause?: { code?: string } };
      return { ok: false, error: `no answer (${e.cause?.code ?? e.name ?? 'network error'})` };
    }
  }
}
