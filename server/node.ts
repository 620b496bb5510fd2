import { chmod, mkdir } from 'node:fs/promises';
import { EventEmitter } from 'events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { KERNEL_ERRORS, type ClientStack, createStack, destroyStore, type PluginEntry } from '../index.js';
import { server as serverPreset } from '../plugins.config.js';
import { createAuth } from './auth/index.js';
import { createAuthority } from './authority/index.js';
import { loadConfig, type Env } from './config.js';
import type { JwtKeys, Logger, NodeContext, ServerConfig } from './context.js';
import { answerClientError, cors, errorHandler, notFound, readinessGate, refuseCrossSite, requestLog, securityHeaders } from './http.js';
import { httpServerOptions, jsonBodies, limitConnections } from './http-limits.js';
import { DEFAULT_REFUSAL_PACE_MS, paceRefusals } from './refusal-pace.js';
import { loadJwtKeys } from './keys.js';
import { createReplicationRouter } from './replication/index.js';
import { guardOwnSyncs } from './replication/own-sync.js';
import { authorize } from './authorization/index.js';
import { TenantStacks } from './tenants/stacks.js';
import { createIntegrationRouter, startIntegrations, type Integrations } from './integrations.js';
import { createOpenApiRoute } from './routes/openapi.js';
import type { WebhookOptions } from './webhooks/options.js';
import type { AppRoutes } from './app-config.js';
import { SERVER_ERRORS } from './errors-codes.js';

export { SECRETS, type SecretReader } from './secrets/store.js';
export type { WebhookOptions } from './webhooks/options.js';
export { appPlugins, checkAppConfig, defineConfig, loadAppConfig, type AppConfig, type AppJobHandler, type AppRoutes, type AppRouteTools } from './app-config.js';

export interface ServerNodeOptions {
  /** the environment to read (default process.env) */
  env?: Env;
  /** settings that win over the environment (tests: port 0, a temp dataDir) */
  config?: Partial<ServerConfig>;
  /** where log lines go (default console.log); never receives a secret */
  log?: Logger;
  /** the stack's plugins (default the server preset) */
  plugins?: readonly PluginEntry[];
  /** the stack's adapter (default leveldb; memory for quick tests) */
  adapter?: 'leveldb' | 'memory';
  /** what time it is for sessions and for the node's stack (default Date.now): tests move it instead of waiting */
  clock?: () => number;
  /** webhook delivery settings over the WEBHOOK_* variables (tests: short retry delays) */
  webhooks?: Partial<WebhookOptions>;
  /** the app's own routes (an app configuration module's `routes`, server/app-config.ts) */
  routes?: AppRoutes;
}

/** How long stop() lets in-flight requests (long-poll feeds among them) finish before closing them. */
const DRAIN_MS = 5000;

/** A Node request handler that, mounted in another app, passes on what it does not answer. */
export type NodeRequestHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/**
 * The server node: the engine behind an Express app. Events: `ready` { port, url },
 * `login` { username, sessionId }, `session:revoked` { sessionId, by }, `reset`, `stopping`, `stopped`,
 * `error` (Error), the authority's `sequence:assigned`, `unique:refused`, `quota:exceeded`, and
 * the webhooks' `webhook:delivered` / `webhook:failed` / `webhook:dead-lettered` /
 * `webhook:disabled` — see docs/server.md.
 */
export class ServerNode extends EventEmitter {
  readonly config: ServerConfig;
  private readonly log: Logger;
  private readonly expressApp: Express;
  private readonly auth: ReturnType<typeof createAuth>;
  private readonly authority: ReturnType<typeof createAuthority>;
  private httpServer: Server | null = null;
  private openStack: ClientStack | null = null;
  private jwtKeys: JwtKeys | null = null;
  private ready = false;
  private initializing: Promise<void> | null = null;
  /** one stack per tenant, opened on demand (server/tenants, docs/server.md#tenants) */
  readonly tenants: TenantStacks;
  private readonly context: NodeContext;
  private integrations: Integrations | null = null;

  constructor(private readonly options: ServerNodeOptions = {}) {
    super();
    this.config = { ...loadConfig(options.env ?? process.env), ...options.config };
    this.log = options.log ?? ((line) => console.log(line));
    this.tenants = new TenantStacks({
      stackName: this.config.stackName,
      dataDir: this.config.dataDir,
      adapter: options.adapter ?? 'leveldb',
      plugins: options.plugins ?? serverPreset,
      maxOpen: this.config.tenantMaxOpen ?? 50,
      idleMs: this.config.tenantIdleMs ?? 300_000,
      source: () => this.stack(),
      ...(options.clock ? { clock: options.clock } : {}),
      log: this.log,
      onOpen: (stack, tenant) => {
        guardOwnSyncs(stack, () => this.stack()); // a tenant's own syncs: users live in the default stack
        return this.authority.attachStack(stack, tenant);
      },
    });
    const context: NodeContext = {
      config: this.config,
      events: this,
      log: this.log,
      stack: () => {
        if (!this.openStack) throw KERNEL_ERRORS.stackClosed('The node is not started.');
        return this.openStack;
      },
      keys: () => {
        if (!this.jwtKeys) throw SERVER_ERRORS.serverKey('The node is not started.');
        return this.jwtKeys;
      },
      resetStack: () => this.resetStack(),
      tenants: this.tenants,
      stackFor: async (tenant, caller) => {
        authorize(caller, { type: 'tenant', tenant });
        return this.tenants.lease(tenant);
      },
    };
    this.context = context;
    this.auth = createAuth(context, options.clock ? { clock: options.clock } : {});
    this.authority = createAuthority(context);
    this.expressApp = this.buildApp(context);
  }

  /**
   * The Express application (usable before start: it answers 503 until the node is ready), typed
   * as the request handler it is — `http.createServer(node.app())`, `parent.use(node.app())` —
   * so the package's .d.ts names no Express type (an app need not install @types/express).
   */
  app(): NodeRequestHandler {
    return this.expressApp;
  }

  private buildApp(context: NodeContext): Express {
    const app = express();
    app.disable('x-powered-by');
    app.use(requestLog(this.log));
    app.use(paceRefusals(this.config.refusalPaceMs ?? DEFAULT_REFUSAL_PACE_MS)); // a refused client's retry loop is slowed, not served at full speed
    app.use(securityHeaders(this.config)); // helmet: nosniff, no framing, a CSP that allows nothing (server/http.ts)
    app.use(cors(this.config));
    app.use(refuseCrossSite(this.config)); // CSRF: the session cookie from another site's page (server/http.ts)
    app.use(readinessGate(() => this.ready));
    // open liveness route for load balancers: no auth, no storage
    app.get('/health', (_req, res) => void res.json({ ok: true }));
    app.use(jsonBodies(this.config)); // BODY_LIMIT, ATTACHMENT_BODY_LIMIT for a peer's push (server/http-limits.ts)
    app.use(this.auth.router);
    app.get('/api/openapi.json', this.auth.requireSession, createOpenApiRoute(context));
    this.auth.privateRouter.use(createIntegrationRouter(context)); // document API, SQL, secrets, webhooks
    app.use('/api/private', this.auth.requireSession, this.auth.privateRouter);
    // sequences, unique claims, quotas (server/authority): reached when no route above answered
    app.use('/api/private', this.auth.requireSession, this.authority.router);
    app.use('/db', this.auth.requireSession, createReplicationRouter(context));
    this.options.routes?.(app, { requireSession: this.auth.requireSession, stack: () => this.stack() });
    app.use(notFound);
    app.use(errorHandler(this.log));
    return app;
  }

  /** Starts listening at once (the readiness gate answers 503), then initialises. */
  async start(): Promise<{ port: number; url: string }> {
    const address = await this.listen();
    await this.initialize();
    return address;
  }

  /** Listens on config.port (0: any free port) without initialising: every request gets 503. */
  async listen(): Promise<{ port: number; url: string }> {
    if (!this.httpServer) {
      const server = createServer(httpServerOptions(this.config), this.expressApp);
      server.on('clientError', answerClientError); // 431 / 400 before Express: JSON too (server/http.ts)
      limitConnections(server, this.config); // slow or piled-up clients: server/http-limits.ts
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.config.port, this.config.host, () => resolve());
      });
      this.httpServer = server;
    }
    const { port } = this.httpServer.address() as AddressInfo;
    // the address actually bound (a wildcard host is reached on loopback from this machine)
    const bound = (this.httpServer.address() as AddressInfo).address;
    const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound.includes(':') ? `[${bound}]` : bound;
    return { port, url: `http://${host}:${port}` };
  }

  /** The node's open stack (the engine it serves); throws DS_STACK_CLOSED before start(). */
  stack(): ClientStack {
    if (!this.openStack) throw KERNEL_ERRORS.stackClosed('The node is not started.');
    return this.openStack;
  }

  get port(): number | null {
    return this.httpServer ? (this.httpServer.address() as AddressInfo).port : null;
  }

  /** Keys, stack, users: what the node needs before it answers; then `ready`. */
  initialize(): Promise<void> {
    this.initializing ??= (async () => {
      this.jwtKeys = await loadJwtKeys(this.config, this.log);
      await this.openNodeStack();
      this.ready = true;
      const { port } = this.httpServer ? (this.httpServer.address() as AddressInfo) : { port: 0 };
      this.emit('ready', { port });
    })().catch((err) => {
      this.initializing = null;
      throw err;
    });
    return this.initializing;
  }

  private async openNodeStack(): Promise<void> {
    const generatedPassword = this.config.adminPassword ? null : randomPassword();
    if ((this.options.adapter ?? 'leveldb') === 'leveldb') {
      // the data folder holds password hashes, sessions and keys: this user only, whatever the
      // umask of whoever embeds the node (npm start also sets umask 077, for the files inside)
      await mkdir(this.config.dataDir, { recursive: true, mode: 0o700 });
      await chmod(this.config.dataDir, 0o700);
    }
    this.openStack = await createStack({
      name: this.config.stackName,
      adapter: this.options.adapter ?? 'leveldb',
      dataDir: this.config.dataDir,
      plugins: this.options.plugins ?? serverPreset,
      // one time for the node: sessions and the stack's lifetimes, due times and timestamps
      ...(this.options.clock ? { clock: { now: this.options.clock } } : {}),
    });
    // the node's own syncs keep its private classes and authorize what they pull (server/replication/own-sync.ts)
    guardOwnSyncs(this.openStack, () => this.stack());
    if (generatedPassword) {
      this.config.adminPassword = generatedPassword;
      this.config.adminPasswordGenerated = true;
    }
    const { adminCreated } = (await this.auth.init()) ?? { adminCreated: false };
    await this.authority.attach();
    if (generatedPassword && adminCreated) {
      // printed once, on the first boot only, so an operator can log in; never logged again
      console.log(`docstack: first boot — admin user "${this.config.adminUsername}" created with the password: ${generatedPassword}`);
    }
    this.config.adminPassword = null; // the first-boot password is not kept in memory
    this.config.adminPasswordGenerated = false;
    this.integrations = await startIntegrations(this.context, this.openStack, { env: this.options.env ?? process.env, webhooks: this.options.webhooks });
  }

  /** Destroys the node's database and opens it again empty; requests get 503 meanwhile. */
  async resetStack(): Promise<void> {
    this.ready = false;
    try {
      const stack = this.openStack;
      await this.stopIntegrations();
      this.openStack = null;
      if (stack) {
        await stack.close();
        await destroyStore({ name: stack.name, adapter: this.options.adapter ?? 'leveldb', dataDir: this.config.dataDir });
      }
      await this.openNodeStack();
      this.emit('reset');
    } finally {
      this.ready = this.openStack !== null;
    }
  }

  /** Webhooks stop sending (what is pending stays in the outbox for the next start). */
  private async stopIntegrations(): Promise<void> {
    const integrations = this.integrations;
    this.integrations = null;
    await integrations?.stop();
  }

  /** Stops accepting, lets in-flight requests finish (bounded), closes the stack. */
  async stop(): Promise<void> {
    this.ready = false;
    this.emit('stopping'); // waiting longpoll feeds answer now rather than hold the drain (DRAIN_MS)
    const server = this.httpServer;
    this.httpServer = null;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await closed;
      clearTimeout(timer);
    }
    this.auth.close();
    await this.initializing?.catch(() => undefined);
    await this.tenants.closeAll();
    await this.stopIntegrations();
    await this.openStack?.close();
    this.openStack = null;
    this.initializing = null;
    this.emit('stopped');
  }
}

export function createServerNode(options: ServerNodeOptions = {}): ServerNode {
  return new ServerNode(options);
}

function randomPassword(): string {
  return globalThis.crypto.getRandomValues(new Uint8Array(18)).reduce((s, b) => s + b.toString(36).padStart(2, '0'), '').slice(0, 24);
}
