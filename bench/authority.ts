/**
 * bench/authority: sequence numbers per second from the node (POST
 * /api/private/sequences/:name/next, one number per request: a durable counter write each, group
 * committed across concurrent requests) — from one client (one request at a time) and from 4
 * concurrent clients — against the same node's authenticated no-op route (GET /api/private/test:
 * the same session check, no storage), 127.0.0.1, leveldb in a temp folder, same run.
 * Informational aim: a number costs at most 2× an authenticated no-op request.
 */
import { Class } from '../index.js';
import { startBenchNode } from './bench-node.js';
import { comparison, interleaved, record, summarize, type BenchReport, type BenchOptions } from './harness.js';

const REQUESTS = 800;
const BLOCKS = 4;

/** `count` requests from `clients` clients, each sending one at a time. */
async function hammer(url: string, method: 'GET' | 'POST', token: string, count: number, clients: number): Promise<void> {
  let next = 0;
  const client = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
}

export async function runAuthority(options: BenchOptions): Promise<BenchReport> {
  // the node hands out numbers only of sequences its schema uses
  const { origin, token, stop } = await startBenchNode('authority', {
    setup: (node) => Class.create(node.stack(), 'BenchInvoice', 'class', '', { number: { type: 'integer', sequence: 'bench' } }),
  });
  const results = [];
  const perSecond: Record<string, number[]> = {};
  try {
    for (const clients of [1, 4]) {
      const name = `sequence numbers × ${REQUESTS}, ${clients} client${clients > 1 ? 's' : ''}`;
      const c = comparison({ name, adapter: 'http', engine: 'next number', baseline: 'authenticated no-op', aim: { max: 2, binding: false } });
      perSecond[clients] = [];
      for (let round = 0; round <= options.rounds; round++) {
        const per = REQUESTS / BLOCKS;
        const t = await interleaved(
          {
            sequence: () => hammer(`${origin}/api/private/sequences/bench/next`, 'POST', token, per, clients),
            noop: () => hammer(`${origin}/api/private/test`, 'GET', token, per, clients),
          },
          BLOCKS,
          round,
        );
        if (round === 0) continue;
        record(c, t.sequence, t.noop);
        const rate = (REQUESTS / t.sequence.wallMs) * 1000;
        perSecond[clients].push(rate);
        options.log(`${clients} client(s), round ${round}: ${rate.toFixed(0)} numbers/s, no-op ${((REQUESTS / t.noop.wallMs) * 1000).toFixed(0)} req/s`);
      }
      results.push(summarize(c));
    }
  } finally {
    await stop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    bench: 'authority',
    settings: { requests: REQUESTS, numbersPerSecond: { oneClient: Math.round(median(perSecond[1])), fourClients: Math.round(median(perSecond[4])) }, storage: 'leveldb, one durable counter write per request (group committed)' },
    results,
  };
}
