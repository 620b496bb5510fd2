/**
 * bench/replication: stock PouchDB (memory, pouchdb-adapter-http + pouchdb-replication) pushes
 * 10,000 documents to a peer, then a fresh client pulls them back, against two peers in the
 * same run, both on 127.0.0.1 and on leveldb: this node's replication endpoint (validation of
 * every pushed document included, behind a Bearer check) and pouchdb-server 4.2 (the
 * reference CouchDB-protocol peer in Node, a child process). Aim: ratio ≤ 1 (at least as fast).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import PouchDB from 'pouchdb-core';
import HttpAdapter from 'pouchdb-adapter-http';
import MemoryAdapter from 'pouchdb-adapter-memory';
import Replication from 'pouchdb-replication';
import { Class, createStack, type ClientStack } from '../index.js';
import { server as serverPreset } from '../plugins.config.js';
import type { NodeContext, ServerConfig } from '../server/context.js';
import { createReplicationRouter } from '../server/replication/index.js';
import { addSamples, comparison, measure, record, rotate, summarize, type BenchReport } from './harness.js';

PouchDB.plugin(HttpAdapter).plugin(MemoryAdapter).plugin(Replication);

const DOCS = 10_000;
const TOKEN = 'bench-token';
const REFERENCE_PORT_FILE = 'pouchdb-server';

interface Options {
  rounds: number;
  log: (line: string) => void;
}

const docs = () =>
  Array.from({ length: DOCS }, (_, i) => ({
    _id: `Item-${String(i).padStart(6, '0')}-${globalThis.crypto.randomUUID()}`,
    '~class': 'Item',
    title: `item number ${i}`,
    n: i,
    tags: ['a', 'b'],
    '~createTimestamp': new Date().toISOString(),
    active: true,
  }));

async function startEngine(dir: string): Promise<{ url: string; stack: ClientStack; stop(): Promise<void> }> {
  const stack = await createStack({ name: 'docstack', adapter: 'leveldb', dataDir: dir, plugins: serverPreset });
  await Class.create(stack, 'Item', 'class', '', { title: { type: 'string', mandatory: true }, n: { type: 'integer' }, tags: { type: 'string', isArray: true } });
  const ctx: NodeContext = {
    config: { stackName: 'docstack', bodyLimit: 1024 * 1024 } as ServerConfig,
    events: new EventEmitter(),
    log: () => undefined,
    stack: () => stack,
    keys: () => {
      throw new Error('no keys');
    },
    resetStack: async () => undefined,
  };
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.use((req, res, next) => (req.headers.authorization === `Bearer ${TOKEN}` ? next() : void res.status(401).json({ error: 'unauthorized', reason: '' })));
  app.use('/db', createReplicationRouter(ctx));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/db/docstack`,
    stack,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stack.close();
    },
  };
}

async function startReference(dir: string): Promise<{ origin: string; child: ChildProcess }> {
  const bin = fileURLToPath(new URL('./peers/node_modules/pouchdb-server/bin/pouchdb-server', import.meta.url));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [bin, '-p', String(port), '-o', '127.0.0.1', '-d', dir, '--no-stdout-logs'], {
    stdio: 'ignore',
    cwd: dir, // pouchdb-server writes config.json and log.txt into its working directory
  });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await fetch(origin).then((r) => r.ok, () => false)) return { origin, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`${REFERENCE_PORT_FILE} did not start`);
}

function remote(url: string): PouchDB.Database {
  const withToken = (u: string, o: { headers: Headers }) => {
    o.headers.set('Authorization', `Bearer ${TOKEN}`);
    return (PouchDB as unknown as { fetch: (u: string, o: unknown) => Promise<unknown> }).fetch(u, o);
  };
  return new PouchDB(url, { fetch: withToken } as never);
}

let counter = 0;
const memory = () => new PouchDB(`bench-client-${process.pid}-${++counter}`, { adapter: 'memory' });

/** Push 10,000 then pull them into a fresh client: the two timed steps of one side. */
async function pushPull(url: string) {
  const source = memory();
  await source.bulkDocs(docs());
  const push = await measure(async () => {
    const r = (await source.replicate.to(remote(url), { batch_size: 100 })) as unknown as { docs_written: number; doc_write_failures: number };
    if (r.doc_write_failures > 0 || r.docs_written < DOCS) throw new Error(`push wrote ${r.docs_written}, refused ${r.doc_write_failures}`);
  });
  const target = memory();
  const pull = await measure(async () => {
    await target.replicate.from(remote(url), { batch_size: 100 });
  });
  if ((await target.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff', limit: 0 })).total_rows < DOCS) throw new Error('pull missed documents');
  await source.destroy();
  await target.destroy();
  return { push, pull };
}

export async function runReplication(options: Options): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'docstack-bench-repl-'));
  await mkdir(join(dir, 'reference'), { recursive: true });
  const reference = await startReference(join(dir, 'reference'));
  const push = comparison({ name: `push ${DOCS.toLocaleString('en')}`, adapter: 'leveldb', engine: 'docstack node', baseline: 'pouchdb-server', aim: { max: 1, binding: true } });
  const pull = comparison({ name: `pull ${DOCS.toLocaleString('en')}`, adapter: 'leveldb', engine: 'docstack node', baseline: 'pouchdb-server', aim: { max: 1, binding: true } });
  const both = comparison({ name: `push + pull ${DOCS.toLocaleString('en')}`, adapter: 'leveldb', engine: 'docstack node', baseline: 'pouchdb-server', aim: { max: 1, binding: true } });
  try {
    for (let round = 0; round <= options.rounds; round++) {
      const results: Record<string, Awaited<ReturnType<typeof pushPull>>> = {};
      for (const side of rotate(['engine', 'reference'], round)) {
        if (side === 'engine') {
          const engine = await startEngine(join(dir, `engine-${round}`));
          try {
            results.engine = await pushPull(engine.url);
          } finally {
            await engine.stop();
          }
        } else {
          results.reference = await pushPull(`${reference.origin}/bench-${round}`);
        }
      }
      options.log(`round ${round === 0 ? 'warm-up' : round}: engine push ${results.engine.push.wallMs.toFixed(0)} ms, pull ${results.engine.pull.wallMs.toFixed(0)} ms; pouchdb-server push ${results.reference.push.wallMs.toFixed(0)} ms, pull ${results.reference.pull.wallMs.toFixed(0)} ms`);
      if (round === 0) continue; // warm-up
      record(push, results.engine.push, results.reference.push);
      record(pull, results.engine.pull, results.reference.pull);
      record(both, addSamples(results.engine.push, results.engine.pull), addSamples(results.reference.push, results.reference.pull));
    }
  } finally {
    reference.child.kill();
    await rm(dir, { recursive: true, force: true });
  }
  return { bench: 'replication', settings: { docs: DOCS, batchSize: 100, rounds: options.rounds, client: 'pouchdb memory', reference: 'pouchdb-server 4.2.0 (leveldb, child process)' }, results: [push, pull, both].map(summarize) };
}
