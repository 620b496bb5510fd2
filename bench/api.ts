/**
 * bench/api: the node's integration surface, each side by side with a baseline in the same run
 * (createServerNode on leveldb in a temp folder, real login, 127.0.0.1):
 * - HTTP document API single creates (`POST /api/private/docs/Order`, one document a request,
 *   10 at a time) against the replication endpoint's `_bulk_docs` given the same documents one a
 *   request, 10 at a time. Aim: ≥ 0.5× the documents per second (time ratio ≤ 2).
 * - `POST /api/private/docs/Order/_bulk` against `_bulk_docs`, the same documents in the same
 *   batches. Aim: ≥ 0.9× (time ratio ≤ 1.11).
 * - webhook delivery: documents written, then every delivery signed and answered by a receiver
 *   on 127.0.0.1, against signing and POSTing the same bodies straight to that receiver (same
 *   concurrency): what the durable outbox costs. Figures: deliveries per second.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Class } from '../index.js';
import { startBenchNode } from './bench-node.js';
import { comparison, interleaved, measure, record, summarize, type BenchReport, type BenchOptions } from './harness.js';

const SINGLE = 400;
const BULK = 2000;
const BATCH = 200;
const HOOKS = 400;
const CONCURRENCY = 10;
const WEBHOOK_CONCURRENCY = 8;

let serial = 0;
/** The same document for both sides: an id, the class, three attributes (the engine's fields added for _bulk_docs). */
function orders(count: number) {
  return Array.from({ length: count }, () => {
    const n = serial++;
    return { _id: `Order-${String(n).padStart(8, '0')}-${globalThis.crypto.randomUUID()}`, title: `order ${n}`, n, tags: ['a', 'b'] };
  });
}
const asReplicated = (doc: ReturnType<typeof orders>[number]) => ({ ...doc, '~class': 'Order', '~createTimestamp': new Date().toISOString(), active: true });

async function startReceiver() {
  let answered = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answered++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, answered: () => answered, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function runApi(options: BenchOptions): Promise<BenchReport> {
  const { node, origin: url, token, stop } = await startBenchNode('api', {
    config: { bodyLimit: 16 * 1024 * 1024 },
    webhooks: { concurrency: WEBHOOK_CONCURRENCY, pollMs: 200 },
    setup: async (started) => {
      await Class.create(started.stack(), 'Order', 'class', '', { title: { type: 'string', mandatory: true }, n: { type: 'integer' }, tags: { type: 'string', isArray: true } });
      await Class.create(started.stack(), 'Hook', 'class', '', { title: { type: 'string', mandatory: true }, n: { type: 'integer' } });
    },
  });
  const receiver = await startReceiver();
  const single = comparison({ name: `create × ${SINGLE}, one a request (${CONCURRENCY} at a time)`, adapter: 'http', engine: 'POST /docs/Order', baseline: '_bulk_docs, 1 doc', aim: { max: 2, binding: true } });
  const bulk = comparison({ name: `create × ${BULK} in batches of ${BATCH}`, adapter: 'http', engine: 'POST /docs/Order/_bulk', baseline: '_bulk_docs', aim: { max: 1.11, binding: true } });
  const hooks = comparison({ name: `webhook deliveries × ${HOOKS} (${WEBHOOK_CONCURRENCY} at a time)`, adapter: 'http', engine: 'outbox + sender', baseline: 'signed POSTs, no outbox', aim: { max: 3, binding: false } });
  let deliveriesPerSecond: number[] = [];
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, expected: number) => {
      const answer = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await answer.text();
      if (answer.status !== expected || text.includes('"error"')) throw new Error(`${path} answered ${answer.status}: ${text.slice(0, 300)}`);
    };
    const secret = `whsec_${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
    await post('/api/private/webhooks', { url: receiver.url, classes: ['Hook'], operations: ['create'], secret }, 201);

    let delivered = 0;
    node.on('webhook:delivered', () => delivered++);
    const signer = new Webhook(secret);

    for (let round = 0; round <= options.rounds; round++) {
      const s = await interleaved(
        {
          api: () => pool(orders(SINGLE / 2), CONCURRENCY, (doc) => post('/api/private/docs/Order', doc, 201)),
          replication: () => pool(orders(SINGLE / 2), CONCURRENCY, (doc) => post('/db/docstack/_bulk_docs', { docs: [asReplicated(doc)] }, 201)),
        },
        2,
        round,
      );
      const b = await interleaved(
        {
          api: async () => {
            for (let i = 0; i < BULK / 2; i += BATCH) await post('/api/private/docs/Order/_bulk', { docs: orders(BATCH) }, 201);
          },
          replication: async () => {
            for (let i = 0; i < BULK / 2; i += BATCH) await post('/db/docstack/_bulk_docs', { docs: orders(BATCH).map(asReplicated) }, 201);
          },
        },
        2,
        round,
      );
      // webhooks: the outbox's whole path (feed → stored delivery → signed POST → status stored)
      const before = delivered;
      const outbox = await measure(async () => {
        await node.stack().createDocs(Array.from({ length: HOOKS }, (_, n) => ({ '~class': 'Hook', title: `hook ${n}`, n })));
        while (delivered - before < HOOKS) await new Promise((r) => setTimeout(r, 5));
      });
      const bodies = Array.from({ length: HOOKS }, (_, n) => ({ id: `msg_${round}_${n}`, body: JSON.stringify({ type: 'document.created', timestamp: new Date().toISOString(), data: { className: 'Hook', id: `Hook-${n}`, doc: { title: `hook ${n}`, n } } }) }));
      const direct = await measure(() =>
        pool(bodies, WEBHOOK_CONCURRENCY, async ({ id, body }) => {
          const at = new Date();
          const answer = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, body) }, body });
          await answer.arrayBuffer();
        }),
      );
      if (round === 0) continue;
      record(single, s.api, s.replication);
      record(bulk, b.api, b.replication);
      record(hooks, outbox, direct);
      deliveriesPerSecond.push(Math.round((HOOKS / outbox.wallMs) * 1000));
      options.log(
        `round ${round}: single ${((SINGLE / 2 / s.api.wallMs) * 1000).toFixed(0)} vs ${((SINGLE / 2 / s.replication.wallMs) * 1000).toFixed(0)} docs/s; ` +
          `bulk ${((BULK / 2 / b.api.wallMs) * 1000).toFixed(0)} vs ${((BULK / 2 / b.replication.wallMs) * 1000).toFixed(0)} docs/s; ` +
          `webhooks ${deliveriesPerSecond.at(-1)} deliveries/s (direct ${((HOOKS / direct.wallMs) * 1000).toFixed(0)}/s)`,
      );
    }
  } finally {
    await stop();
    await receiver.close();
  }
  const results = [summarize(single), summarize(bulk), summarize(hooks)];
  deliveriesPerSecond = [...deliveriesPerSecond].sort((a, b) => a - b);
  const medianDeliveries = deliveriesPerSecond[deliveriesPerSecond.length >> 1];
  options.log(`per document: single creates ${(1 / results[0].ratio).toFixed(2)}× _bulk_docs one a request (aim ≥ 0.5), _bulk ${(1 / results[1].ratio).toFixed(2)}× _bulk_docs (aim ≥ 0.9); webhooks ${medianDeliveries} deliveries/s`);
  return {
    bench: 'api',
    settings: { single: SINGLE, bulk: BULK, batch: BATCH, concurrency: CONCURRENCY, webhooks: HOOKS, webhookConcurrency: WEBHOOK_CONCURRENCY, deliveriesPerSecondMedian: medianDeliveries, store: 'leveldb' },
    results,
  };
}
