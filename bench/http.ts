/**
 * bench/http: requests per second of an authenticated route against an unauthenticated one,
 * same app, same run, 127.0.0.1. Written against a stand-in for the node's auth (a jose RS256
 * JWT verified per request plus a session lookup in an in-memory set, which is what the node's
 * requireSession does with its session cache), because the node and auth were being written
 * at the same time; switch to createServerNode + login once they are wired. Aim: ≥ 0.8, shown
 * as time ratio authenticated ÷ open ≤ 1.25.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { comparison, interleaved, record, summarize, type BenchReport } from './harness.js';

const REQUESTS = 2000;
const CONCURRENCY = 10;
const BLOCKS = 4;

interface Options {
  rounds: number;
  log: (line: string) => void;
}

async function startApp() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const sessions = new Set(['s1']);
  const token = await new SignJWT({ sid: 's1' }).setProtectedHeader({ alg: 'RS256' }).setSubject('u1').setIssuer('docstack').setAudience('docstack').setIssuedAt().setExpirationTime('1h').sign(privateKey);
  const app = express();
  app.get('/api/public/ping', (_req, res) => void res.json({ ok: true }));
  app.use('/api/private', async (req, res, next) => {
    try {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const { payload } = await jwtVerify(bearer, publicKey, { algorithms: ['RS256'], issuer: 'docstack', audience: 'docstack' });
      if (!sessions.has(String(payload.sid))) return void res.status(401).json({ error: 'unauthorized', reason: 'revoked' });
      next();
    } catch {
      res.status(401).json({ error: 'unauthorized', reason: 'bad token' });
    }
  });
  app.get('/api/private/ping', (_req, res) => void res.json({ ok: true }));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, token, server };
}

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

export async function runHttp(options: Options): Promise<BenchReport> {
  const { origin, token, server } = await startApp();
  const c = comparison({ name: `GET × ${REQUESTS} (${CONCURRENCY} at a time)`, adapter: 'http', engine: 'authenticated', baseline: 'open route', aim: { max: 1.25, binding: true } });
  try {
    for (let round = 0; round <= options.rounds; round++) {
      const per = REQUESTS / BLOCKS;
      const t = await interleaved(
        {
          auth: () => hammer(`${origin}/api/private/ping`, { authorization: `Bearer ${token}` }, per),
          open: () => hammer(`${origin}/api/public/ping`, {}, per),
        },
        BLOCKS,
        round,
      );
      if (round === 0) continue;
      record(c, t.auth, t.open);
      options.log(`round ${round}: authenticated ${((REQUESTS / t.auth.wallMs) * 1000).toFixed(0)} req/s, open ${((REQUESTS / t.open.wallMs) * 1000).toFixed(0)} req/s`);
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
  const result = summarize(c);
  options.log(`authenticated ÷ open requests per second: ${(1 / result.ratio).toFixed(2)} (aim ≥ 0.8)`);
  return { bench: 'http', settings: { requests: REQUESTS, concurrency: CONCURRENCY, auth: 'stand-in: jose RS256 verify + session set' }, results: [result] };
}
