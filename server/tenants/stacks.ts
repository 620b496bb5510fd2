import { mkdir } from 'node:fs/promises';
import { KERNEL_ERRORS, type ClientStack, createStack, type PluginEntry } from '../../index.js';
import type { TenantLease, TenantLeases } from '../context.js';
import { admitTenantPushes } from './admission.js';
import { tenantDataDir, tenantStoreName } from './names.js';
import { copySchemaDocs, declaredTenants, tenantSchemaIds } from './schema.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/**
 * Each open tenant store's document cache (storage/document-cache.ts): an eighth of a single
 * store's default, so TENANT_MAX_OPEN stores (50 by default) keep at most ≈ 50 MB of documents.
 */
export const TENANT_DOCUMENT_CACHE = { maxDocuments: 2_500, maxBytes: 1024 * 1024 } as const;

export interface TenantStacksOptions {
  stackName: string;
  dataDir: string;
  adapter: 'leveldb' | 'memory';
  plugins: readonly PluginEntry[];
  /** at most this many tenant stacks are open at once (least recently used closes first) */
  maxOpen: number;
  /** a tenant stack nobody used for this long closes (ms) */
  idleMs: number;
  /** the default stack: the class model that declares the tenants, and their schema documents */
  source: () => ClientStack;
  clock?: () => number;
  log: (line: string) => void;
  /** what the node attaches to a tenant stack once it is open (quotas, authority events) */
  onOpen?: (stack: ClientStack, tenant: string) => Promise<void>;
}

interface Entry {
  tenant: string;
  opening: Promise<ClientStack>;
  stack: ClientStack | null;
  /** requests using the stack now (a long-poll feed among them): it is not closed under them */
  leases: number;
  lastUsed: number;
  idleTimer: NodeJS.Timeout | null;
  closing: Promise<void> | null;
}

/**
 * The node's tenant stacks: one stack per tenant, each on its own store, opened on first use,
 * closed when idle and when more than `maxOpen` are open (least recently used first, never one
 * a request is using). A node with 1,000 tenants holds at most `maxOpen` open stores.
 */
export class TenantStacks implements TenantLeases {
  private readonly entries = new Map<string, Entry>();
  private stopped = false;
  private unsubscribe: (() => void) | null = null;
  private followed: ClientStack | null = null;
  private known: Promise<Set<string>> | null = null;

  constructor(private readonly options: TenantStacksOptions) {}

  /** How many tenant stacks are open (or opening) now. */
  get openCount(): number {
    return this.entries.size;
  }

  /** The tenants the class model declares (cached until a class document changes). */
  async declared(): Promise<Set<string>> {
    this.follow();
    this.known ??= declaredTenants(this.options.source()).catch((err) => {
      this.known = null;
      throw err;
    });
    return this.known;
  }

  /** The open stack of a declared tenant, lent until `release()`; DS_TENANT_NOT_FOUND for any other name. */
  async lease(tenant: string): Promise<TenantLease> {
    if (this.stopped) throw KERNEL_ERRORS.stackClosed('The node is stopping.');
    if (!(await this.declared()).has(tenant)) {
      throw SERVER_ERRORS.tenantNotFound(`No class of this node belongs to a tenant named ${JSON.stringify(tenant)}.`, { path: 'tenant' });
    }
    let entry = this.entries.get(tenant);
    if (entry?.closing) {
      await entry.closing;
      entry = this.entries.get(tenant);
    }
    if (!entry) entry = this.open(tenant);
    entry.leases += 1;
    entry.lastUsed = this.now();
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
    this.evictBeyondMax(); // after the lease: the stack being opened is never the one closed
    let stack: ClientStack;
    try {
      stack = await entry.opening;
    } catch (err) {
      entry.leases -= 1;
      throw err;
    }
    let released = false;
    const held = entry;
    return {
      stack,
      release: () => {
        if (released) return;
        released = true;
        held.leases -= 1;
        held.lastUsed = this.now();
        if (held.leases === 0 && !held.closing) this.scheduleIdleClose(held);
      },
    };
  }

  /** Runs `use` with the tenant's stack lent to it. */
  async use<T>(tenant: string, use: (stack: ClientStack) => Promise<T>): Promise<T> {
    const lease = await this.lease(tenant);
    try {
      return await use(lease.stack);
    } finally {
      lease.release();
    }
  }

  /** Closes every tenant stack (the node stops). */
  async closeAll(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await Promise.all([...this.entries.values()].map((entry) => this.close(entry)));
    this.stopped = false; // a node started again serves its tenants again
    this.followed = null;
  }

  private open(tenant: string): Entry {
    const entry: Entry = { tenant, opening: Promise.resolve(null as unknown as ClientStack), stack: null, leases: 0, lastUsed: this.now(), idleTimer: null, closing: null };
    entry.opening = this.openStack(tenant).then(
      (stack) => {
        entry.stack = stack;
        return stack;
      },
      (err) => {
        this.entries.delete(tenant);
        throw err;
      },
    );
    this.entries.set(tenant, entry);
    return entry;
  }

  private async openStack(tenant: string): Promise<ClientStack> {
    const { adapter, dataDir, stackName, plugins, clock } = this.options;
    const folder = tenantDataDir(dataDir, stackName);
    if (adapter === 'leveldb') await mkdir(folder, { recursive: true, mode: 0o700 });
    const stack = await createStack({
      name: tenantStoreName(stackName, tenant),
      adapter,
      dataDir: folder,
      plugins,
      documentCache: TENANT_DOCUMENT_CACHE,
      ...(clock ? { clock: { now: clock } } : {}),
    });
    try {
      const source = this.options.source();
      admitTenantPushes(stack, tenant, source);
      await copySchemaDocs(source, stack, await tenantSchemaIds(source, tenant));
      await this.options.onOpen?.(stack, tenant);
    } catch (err) {
      await stack.close().catch(() => undefined);
      throw err;
    }
    return stack;
  }

  /** Least recently used first; stacks in use stay open (the count may pass maxOpen meanwhile). */
  private evictBeyondMax(): void {
    const idle = [...this.entries.values()].filter((e) => e.leases === 0 && !e.closing).sort((a, b) => a.lastUsed - b.lastUsed);
    let excess = this.entries.size - this.options.maxOpen;
    for (const entry of idle) {
      if (excess <= 0) break;
      void this.close(entry);
      excess -= 1;
    }
  }

  private scheduleIdleClose(entry: Entry): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => {
      if (entry.leases === 0) void this.close(entry);
    }, this.options.idleMs);
    entry.idleTimer.unref();
    this.evictBeyondMax();
  }

  private close(entry: Entry): Promise<void> {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
    entry.closing ??= (async () => {
      try {
        const stack = await entry.opening.catch(() => null);
        await stack?.close();
      } catch (err) {
        this.options.log(`tenants: closing ${JSON.stringify(entry.tenant)} failed: ${JSON.stringify((err as Error).message)}`);
      } finally {
        if (this.entries.get(entry.tenant) === entry) this.entries.delete(entry.tenant);
      }
    })();
    return entry.closing;
  }

  /**
   * Class documents change on the default stack: the declared tenants are read again, and the
   * changed class (with its domains and patches) is copied into the open tenant stacks it
   * belongs to. A closed tenant stack gets the whole schema again when it next opens.
   */
  private follow(): void {
    const source = this.options.source();
    if (this.followed === source) return;
    this.unsubscribe?.();
    this.followed = source;
    this.known = null;
    this.unsubscribe = source.changes.subscribe((change) => {
      const id = change.id;
      const schema = !id.includes('-') || id.startsWith('domain-') || id.startsWith('~Patch-');
      if (!schema || id.startsWith('~') && !id.startsWith('~Patch-') || id.startsWith('_')) return;
      this.known = null;
      for (const entry of this.entries.values()) {
        if (!entry.stack || entry.closing) continue;
        const stack = entry.stack;
        void tenantSchemaIds(source, entry.tenant)
          .then((ids) => copySchemaDocs(source, stack, ids))
          .catch((err) => this.options.log(`tenants: copying the schema into ${JSON.stringify(entry.tenant)} failed: ${JSON.stringify((err as Error).message)}`));
      }
    });
  }

  private now(): number {
    return this.options.clock?.() ?? Date.now();
  }
}
