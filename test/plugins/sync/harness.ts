/**
 * A minimal server for the replication tests: a leveldb stack with the server preset, an
 * express app with a fixed-Bearer-token check (so the tests prove auth sits in front of the
 * endpoint) and the replication router at /db, on 127.0.0.1:0. Used until the node's own
 * createServerNode (with real login) is wired in these tests.
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import PouchDB from 'pouchdb-core';
import HttpAdapter from 'pouchdb-adapter-http';
import MemoryAdapter from 'pouchdb-adapter-memory';
import Replication from 'pouchdb-replication';
import { Class, createStack, type ClientStack } from '../../../index.js';
import { browser, server as serverPreset, type BrowserStack } from '../../../plugins.config.js';
import { tempDir, track, uniqueName } from '../../helpers/stack.js';
import type { NodeContext, ServerConfig } from '../../../server/context.js';
import { createReplicationRouter } from '../../../server/replication/index.js';

PouchDB.plugin(HttpAdapter).plugin(MemoryAdapter).plugin(Replication);
export { PouchDB };

export const TOKEN = 'test-token-0123456789';
export const STACK_NAME = 'docstack';

export interface TestNode {
  url: string;
  origin: string;
  stack: ClientStack;
  requests: number;
  /** POST /login calls answered */
  logins: number;
  /**
   * ids whose `_bulk_docs` line the node answers as held (the shape a docstack node with ingest
   * holding answers: `ok: true` with `held: { code, reason, waitingFor }`)
   */
  holding: Set<string>;
  stop(): Promise<void>;
}

/** `role`: who the fixed token logs in as (authorization: only an admin may push schema). */
export async function startNode(dataDir: string, options: { port?: number; role?: 'admin' | 'user' } = {}): Promise<TestNode> {
  const stack = await createStack({ name: STACK_NAME, adapter: 'leveldb', dataDir, plugins: serverPreset });
  const config = { stackName: STACK_NAME, bodyLimit: 1024 * 1024 } as ServerConfig;
  const ctx: NodeContext = { config, events: new EventEmitter(), log: () => undefined, stack: () => stack, keys: () => { throw new Error('no keys in tests'); }, resetStack: async () => undefined };
  const app = express();
  const node = { requests: 0, logins: 0, holding: new Set<string>() } as TestNode;
  app.use(express.json({ limit: '1mb' }));
  // the node's login answers with the httpOnly cookie jwtToken (server/auth); mimicked here
  app.post('/login', (req: Request, res: Response) => {
    node.logins += 1;
    if (req.body?.username !== 'ann' || req.body?.password !== 'ann-password') return void res.status(401).json({ error: 'unauthorized', reason: 'Wrong username or password.' });
    res.cookie('jwtToken', TOKEN, { httpOnly: true }).json({ sessionId: 's1', expiresAt: Date.now() + 3600_000 });
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    node.requests += 1;
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.status(401).json({ error: 'unauthorized', reason: 'Log in first.' });
    const role = options.role ?? 'user';
    res.locals.user = { id: '~User-ann', username: 'ann', role };
    next();
  });
  // a node that holds: the held documents are kept out of the store (so out of its feed) and
  // answered `ok` with `held`, as a docstack node with ingest holding answers them
  app.post('/db/:name/_bulk_docs', (req: Request, res: Response, next: NextFunction) => {
    const docs: Array<{ _id?: string; _rev?: string }> = Array.isArray(req.body?.docs) ? req.body.docs : [];
    const held = docs.filter((doc) => doc._id && node.holding.has(doc._id));
    if (held.length === 0) return next();
    req.body.docs = docs.filter((doc) => !held.includes(doc));
    const json = res.json.bind(res);
    res.json = (body: unknown) =>
      json([...(Array.isArray(body) ? body : []), ...held.map((doc) => ({ id: doc._id, ok: true, rev: doc._rev, held: { code: 'DS_INGEST_WAITING', reason: 'its class has not arrived', waitingFor: ['Parent'] } }))]);
    next();
  });
  app.use('/db', createReplicationRouter(ctx));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  node.origin = `http://127.0.0.1:${port}`;
  node.url = `${node.origin}/db/${STACK_NAME}`;
  node.stack = stack;
  node.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stack.close();
  };
  return node;
}

/** A stock PouchDB handle on the node, sending the Bearer token. */
export function remoteDb(url: string, token = TOKEN): PouchDB.Database {
  const fetchWithToken = (u: string, opts: { headers: Headers }) => {
    opts.headers.set('Authorization', `Bearer ${token}`);
    return (PouchDB as unknown as { fetch: (u: string, o: unknown) => Promise<unknown> }).fetch(u, opts);
  };
  return new PouchDB(url, { fetch: fetchWithToken } as never);
}

let counter = 0;
export function localDb(): PouchDB.Database {
  counter += 1;
  return new PouchDB(`client-${process.pid}-${counter}-${Date.now()}`, { adapter: 'memory' });
}

/** A raw document as a peer running the engine would have stored it. */
export function itemDoc(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { _id: `Item-${String(i).padStart(6, '0')}-${globalThis.crypto.randomUUID()}`, '~class': 'Item', title: `item ${i}`, n: i, '~createTimestamp': new Date().toISOString(), active: true, ...extra };
}

export const ITEM_SCHEMA = {
  title: { type: 'string', mandatory: true, maxLength: 100 },
  n: { type: 'integer' },
};

/**
 * A node with the Item class and a fresh memory client (browser preset) — what most sync tests
 * start from. The node goes into `nodes`, for the test file's afterEach to stop.
 */
export async function nodeAndClient(nodes: TestNode[], name: string): Promise<{ server: TestNode; client: BrowserStack }> {
  const server = await startNode(await tempDir());
  nodes.push(server);
  await Class.create(server.stack, 'Item', 'class', '', ITEM_SCHEMA);
  const client = track(await createStack({ name: uniqueName(name), adapter: 'memory', plugins: browser }));
  return { server, client };
}
