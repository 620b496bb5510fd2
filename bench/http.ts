/**
 * bench/http: requests per second of an authenticated private route (GET /api/private/test:
 * JWT from the cookie or Bearer header, RS256 check, active-session check) against an open
 * one (GET /health) on the same node — createServerNode on leveldb in a temp folder, real
 * login, 127.0.0.1, same run. Aim: ≥ 0.8, shown as the time ratio authenticated ÷ open ≤ 1.25.
 */
import { startBenchNode } from './bench-node.js';
import { comparison, interleaved, record, summarize, type BenchReport, type BenchOptions } from './harness.js';

const REQUESTS = 2000;
const CONCURRENCY = 10;
const BLOCKS = 4;

async function hammer(url: string, headers: Record<string, string>, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function runHttp(options: BenchOptions): Promise<BenchReport> {
  const { origin, token, stop } = await startBenchNode('http');
  const c = comparison({ name: `GET × ${REQUESTS} (${CONCURRENCY} at a time)`, adapter: 'http', engine: 'authenticated', baseline: 'open route', aim: { max: 1.25, binding: true } });
  try {
    for (let round = 0; round <= options.rounds; round++) {
      const per = REQUESTS / BLOCKS;
      const t = await interleaved(
        {
          auth: () => hammer(`${origin}/api/private/test`, { authorization: `Bearer ${token}` }, per),
          open: () => hammer(`${origin}/health`, {}, per),
        },
        BLOCKS,
        round,
      );
      if (round === 0) continue;
      record(c, t.auth, t.open);
      options.log(`round ${round}: authenticated ${((REQUESTS / t.auth.wallMs) * 1000).toFixed(0)} req/s, open ${((REQUESTS / t.open.wallMs) * 1000).toFixed(0)} req/s`);
    }
  } finally {
    await stop();
  }
  const result = summarize(c);
  options.log(`authenticated ÷ open requests per second: ${(1 / result.ratio).toFixed(2)} (aim ≥ 0.8)`);
  return { bench: 'http', settings: { requests: REQUESTS, concurrency: CONCURRENCY, auth: 'the node: JWT (RS256, verified once per token) + session cache' }, results: [result] };
}
