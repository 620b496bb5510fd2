import { EventEmitter } from 'events';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createStack, destroyStore, type ClientStack } from '../../index.js';
import { server as serverPreset } from '../../plugins.config.js';
import { createAuth, sendError, type AuthOptions } from '../../server/auth/index.js';
import { loadConfig } from '../../server/config.js';
import type { NodeContext, ServerConfig } from '../../server/context.js';

export const ADMIN = { username: 'root', password: 'correct horse battery staple' };

let counter = 0;

export interface Harness {
  url: string;
  ctx: NodeContext;
  stack(): ClientStack;
  auth: ReturnType<typeof createAuth>;
  events: EventEmitter;
  keys: { privatePem: string; publicPem: string };
  logs: string[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1, port 0, built like server/node.ts builds its app (JSON body,
 * auth router, requireSession + privateRouter at /api/private) around a memory stack with the
 * server preset: the tests reach the stack and the context directly, which ServerNode hides.
 */
export async function startHarness(options: { config?: Partial<ServerConfig>; auth?: AuthOptions } = {}): Promise<Harness> {
  counter += 1;
  const stackName = `auth-${process.pid}-${counter}-${Date.now()}`;
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const config: ServerConfig = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    stackName,
    adminUsername: ADMIN.username,
    adminPassword: ADMIN.password,
    ...options.config,
  };
  let stack = await createStack({ name: stackName, adapter: 'memory', plugins: serverPreset });
  const events = new EventEmitter();
  const logs: string[] = [];
  const ctx: NodeContext = {
    config,
    events,
    log: (line) => logs.push(line),
    stack: () => stack,
    keys: () => ({ privateKey: pair.privateKey, publicKey: pair.publicKey }),
    // like ServerNode.resetStack: close, destroy, open again empty, auth init
    resetStack: async () => {
      await stack.close();
      await destroyStore({ name: stackName, adapter: 'memory' });
      stack = await createStack({ name: stackName, adapter: 'memory', plugins: serverPreset });
      await auth.init();
    },
  };
  const auth = createAuth(ctx, options.auth);
  await auth.init();

  const app = express();
  app.use(express.json({ limit: config.bodyLimit }));
  app.use(auth.router);
  app.use('/api/private', auth.requireSession, auth.privateRouter);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', reason: 'No such route.' });
  });
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => sendError(res, err));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    ctx,
    stack: () => stack,
    auth,
    events,
    keys: {
      privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    },
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      auth.close();
      await stack.close();
    },
  };
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A JSON request; `token` goes in `Authorization: Bearer`, `cookie` as the Cookie header. */
export async function call(
  h: Harness,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; cookie?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  const res = await fetch(h.url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('application/json');
  return { status: res.status, body: json && text ? (JSON.parse(text) as Record<string, unknown>) : { text }, headers: res.headers };
}

/** Logs in; returns the answer and the token taken from the Set-Cookie header. */
export async function login(h: Harness, username: string, password: string): Promise<Answer & { token: string; setCookie: string }> {
  const answer = await call(h, 'POST', '/login', { body: { username, password } });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  const token = /jwtToken=([^;]+)/.exec(setCookie)?.[1] ?? '';
  return { ...answer, token, setCookie };
}
