/**
 * bench/replication: stock PouchDB (memory, pouchdb-adapter-http + pouchdb-replication) pushes
 * 10,000 documents to a peer, then a fresh client pulls them back, against two peers in the
 * same run, both on 127.0.0.1, on leveldb and each in a child process of its own (so each has
 * its own event loop, as the client has its own): the real server node
 * (bench/replication-node.ts: session check, visibility rules, validation of every pushed
 * document) logged in as an ordinary user, and pouchdb-server 4.2 (the reference
 * CouchDB-protocol peer in Node). Aim: ratio ≤ 1 (at least as fast).
 *
 * BENCH_REPLICATION_IN_PROCESS=1 adds the former, unfair variant (not judged): the replication
 * router inside the bench process, sharing its event loop with the client.
 * BENCH_REPLICATION_PROFILE=<dir> runs the node child under `node --cpu-prof` into <dir>.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { addSamples, comparison, measure, record, rotate, STRIP_TYPES, summarize, type BenchReport, type Sample, type BenchOptions } from './harness.js';

PouchDB.plugin(HttpAdapter).plugin(MemoryAdapter).plugin(Replication);

const DOCS = 10_000;
const TOKEN = 'bench-token';
const REFERENCE_PORT_FILE = 'pouchdb-server';
const BENCH_USER = { username: 'bench', password: 'bench password, not a secret' };
const IN_PROCESS = process.env.BENCH_REPLICATION_IN_PROCESS === '1';
const PROFILE_DIR = process.env.BENCH_REPLICATION_PROFILE;

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

/** The real node in a child process (bench/replication-node.ts), logged in as an ordinary user. */
async function startNodeChild(dir: string): Promise<{ url: string; token: string; pid: number | undefined; stop(): Promise<void> }> {
  const script = fileURLToPath(new URL('./replication-node.ts', import.meta.url));
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', STRIP_TYPES, script, dir, BENCH_USER.username, BENCH_USER.password], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /docstack-bench-node (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the bench node exited (${code}) before it was ready: ${out}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  const res = await fetch(`${origin}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BENCH_USER) });
  const token = /jwtToken=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!token) throw new Error(`the bench node refused the login (${res.status})`);
  return {
    url: `${origin}/db/docstack`,
    token,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

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

function remote(url: string, token = TOKEN): PouchDB.Database {
  const withToken = (u: string, o: { headers: Headers }) => {
    o.headers.set('Authorization', `Bearer ${token}`);
    return (PouchDB as unknown as { fetch: (u: string, o: unknown) => Promise<unknown> }).fetch(u, o);
  };
  return new PouchDB(url, { fetch: withToken } as never);
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/**
 * A timed step whose `cpuMs` is the client's CPU (this process) plus the peer's (its child
 * process, when it has one): the cpu ratio then compares the whole work of a replication, not the
 * client's alone, which is the same code on both sides.
 */
async function measureWithPeer(peerPid: number | undefined, fn: () => Promise<unknown>): Promise<Sample> {
  const before = peerPid === undefined ? null : await processCpuMs(peerPid);
  const sample = await measure(fn);
  const after = peerPid === undefined ? null : await processCpuMs(peerPid);
  return before === null || after === null ? sample : { ...sample, cpuMs: sample.cpuMs + (after - before) };
}

let counter = 0;
const memory = () => new PouchDB(`bench-client-${process.pid}-${++counter}`, { adapter: 'memory' });

/** Push 10,000 then pull them into a fresh client: the two timed steps of one side. */
async function pushPull(url: string, token?: string, peerPid?: number) {
  const source = memory();
  await source.bulkDocs(docs());
  const push = await measureWithPeer(peerPid, async () => {
    const r = (await source.replicate.to(remote(url, token), { batch_size: 100 })) as unknown as { docs_written: number; doc_write_failures: number };
    if (r.doc_write_failures > 0 || r.docs_written < DOCS) throw new Error(`push wrote ${r.docs_written}, refused ${r.doc_write_failures}`);
  });
  const target = memory();
  const pull = await measureWithPeer(peerPid, async () => {
    await target.replicate.from(remote(url, token), { batch_size: 100 });
  });
  if ((await target.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff', limit: 0 })).total_rows < DOCS) throw new Error('pull missed documents');
  await source.destroy();
  await target.destroy();
  return { push, pull };
}

type Side = 'node' | 'reference' | 'in-process';
type Steps = Awaited<ReturnType<typeof pushPull>>;

/**
 * One side's push and pull on a fresh database in a fresh process: a new node child, a new
 * pouchdb-server (so neither peer comes to a round warmed by the rounds before: both start cold,
 * JIT and caches alike), or the router in this process.
 */
async function runSide(side: Side, dir: string, round: number): Promise<Steps> {
  if (side === 'reference') {
    const referenceDir = join(dir, `reference-${round}`);
    await mkdir(referenceDir, { recursive: true });
    const reference = await startReference(referenceDir);
    try {
      return await pushPull(`${reference.origin}/bench`, undefined, reference.child.pid);
    } finally {
      const exited = new Promise((resolve) => reference.child.once('exit', resolve));
      reference.child.kill();
      await exited;
    }
  }
  const peer = side === 'node' ? await startNodeChild(join(dir, `node-${round}`)) : await startEngine(join(dir, `engine-${round}`));
  try {
    return 'token' in peer ? await pushPull(peer.url, peer.token, peer.pid) : await pushPull(peer.url);
  } finally {
    await peer.stop();
  }
}

export async function runReplication(options: BenchOptions): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'docstack-bench-repl-'));
  const n = DOCS.toLocaleString('en');
  const judged = (name: string) => comparison({ name, adapter: 'leveldb', engine: 'docstack node (child)', baseline: 'pouchdb-server', aim: { max: 1, binding: true } });
  const informative = (name: string) => comparison({ name: `${name} (in-process node)`, adapter: 'leveldb', engine: 'docstack router in the bench process', baseline: 'pouchdb-server' });
  const push = judged(`push ${n}`);
  const pull = judged(`pull ${n}`);
  const both = judged(`push + pull ${n}`);
  const old = { push: informative(`push ${n}`), pull: informative(`pull ${n}`), both: informative(`push + pull ${n}`) };
  const sides: Side[] = IN_PROCESS ? ['node', 'reference', 'in-process'] : ['node', 'reference'];
  const ms = (s: Steps | undefined) => (s ? `push ${s.push.wallMs.toFixed(0)} ms (cpu ${s.push.cpuMs.toFixed(0)}), pull ${s.pull.wallMs.toFixed(0)} ms (cpu ${s.pull.cpuMs.toFixed(0)})` : '');
  try {
    for (let round = 0; round <= options.rounds; round++) {
      const results: Partial<Record<Side, Steps>> = {};
      for (const side of rotate(sides, round)) results[side] = await runSide(side, dir, round);
      const node = results.node!;
      const ref = results.reference!;
      options.log(`round ${round === 0 ? 'warm-up' : round}: node ${ms(node)}; pouchdb-server ${ms(ref)}${IN_PROCESS ? `; in-process ${ms(results['in-process'])}` : ''}`);
      if (round === 0) continue; // warm-up
      record(push, node.push, ref.push);
      record(pull, node.pull, ref.pull);
      record(both, addSamples(node.push, node.pull), addSamples(ref.push, ref.pull));
      const inProcess = results['in-process'];
      if (inProcess) {
        record(old.push, inProcess.push, ref.push);
        record(old.pull, inProcess.pull, ref.pull);
        record(old.both, addSamples(inProcess.push, inProcess.pull), addSamples(ref.push, ref.pull));
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const comparisons = IN_PROCESS ? [push, pull, both, old.push, old.pull, old.both] : [push, pull, both];
  return {
    bench: 'replication',
    settings: { docs: DOCS, batchSize: 100, rounds: options.rounds, client: 'pouchdb memory (bench process)', node: 'server node, leveldb, child process, ordinary user', reference: 'pouchdb-server 4.2.0 (leveldb, child process)', processes: 'a fresh peer process per side and round (both start cold)', cpu: 'client (bench process) + peer (its child process, from /proc); the in-process variant: the bench process alone' },
    results: comparisons.map(summarize),
  };
}
