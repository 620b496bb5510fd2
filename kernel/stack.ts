import type { AwilixContainer } from 'awilix';
import { EventEmitter } from 'events';
import { systemClock, type Clock } from '../contracts/clock.js';
import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { WriteOrigin } from '../contracts/hooks.js';
import { SYSTEM_FIELDS, type Doc } from '../contracts/model.js';
import type { StackPort } from '../contracts/stack-port.js';
import { ChangeFeed } from '../storage/change-feed.js';
import { closeDatabase, openDatabase, type AdapterName, type Database } from '../storage/database.js';
import type { DocumentCacheOptions, PouchPlugin } from '../storage/options.js';
import { StackStorage, type Storage } from '../storage/facade.js';
import { writeLockFor } from '../storage/write-lock.js';
import { createStackContainer, KEYS } from './container.js';
import { createHooks, type KernelHooks } from './hooks.js';
import type { SystemPatch } from './patch-types.js';
import { WritePipeline, type DocChangeEvent, type WriteExtras, type WriteRequest } from './pipeline.js';
import { kernelFor, resolvePlugins, type KernelExtension, type PluginEntry, type PluginRegistry } from './plugin.js';
import { applySystemPatches, expectedPatchCount } from './system-patches.js';

export interface StackOptions {
  name: string;
  adapter: AdapterName;
  /** leveldb: folder holding the database folder (default ./data) */
  dataDir?: string;
  /** the PouchDB adapter plugin for `adapter`, handed in (`indexeddb-idb` in the browser bundle: StorageOptions) */
  adapterPlugin?: PouchPlugin;
  /** leveldb and memory: the document cache's bounds, or false for none (StorageOptions.documentCache) */
  documentCache?: DocumentCacheOptions | false;
  /** a preset (plugins.config.ts) or any list of plugins / [plugin, options] / false */
  plugins?: readonly PluginEntry[];
  /** expected number of applied system patches; defaults to the PATCH_COUNT environment variable */
  patchCount?: number;
  /**
   * What time it is (default the wall clock): cache lifetimes, key grace periods, job due times,
   * retention cutoffs and document timestamps read it. Tests move one instead of waiting.
   */
  clock?: Clock;
}

export interface WriteOptions extends WriteExtras {
  origin?: WriteOrigin;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const SYSTEM_FIELD_NAME = /^~[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** What the layer above gives the kernel when it opens a stack of its own (the engine's ClientStack). */
export interface StackLayer<S extends StackCore> {
  /** builds the stack object on the opened store (plugins are not set up yet) */
  make(db: Database, options: StackOptions): S;
  /** the layer's system patches, applied before the plugins' */
  patches: readonly SystemPatch[];
  /** what each plugin's setup context gets from the layer */
  extend: KernelExtension;
}

/**
 * The kernel's part of a stack: one PouchDB store, the hooks, the container, the write pipeline,
 * the plugins' set-up and the life cycle (open → onOpen … onClose → closed). It knows no class,
 * key or query: the engine's ClientStack extends it with those, and plugins see it as StackPort.
 */
export abstract class StackCore extends EventEmitter {
  readonly hooks: KernelHooks = createHooks();
  readonly container: AwilixContainer;
  /** the store as plugins and the server see it; the PouchDB store itself stays the kernel's */
  readonly storage: Storage;
  // the PouchDB store stays private (plugins get `storage`); the engine's stack keeps its own handle
  readonly #db: Database;
  readonly changes: ChangeFeed;
  /** the stack's clock (StackOptions.clock, or the wall clock) */
  readonly clock: Clock;
  protected readonly pipeline: WritePipeline;
  /** what each plugin's setup returned, by plugin name (read with getApi) */
  private readonly apis = new Map<string, unknown>();
  /** the hooks each plugin publishes (Plugin.hooks), by plugin name */
  private readonly pluginHooks = new Map<string, object>();
  /** the `~` fields plugins own (kernel.defineSystemField) → the owning plugin */
  private readonly ownedFields = new Map<string, string>();
  /**
   * The `~` fields this stack's plugins stamp (`~updatedBy`): validation accepts them beside
   * SYSTEM_FIELDS, and drafts refuse a caller's value for them (kernel/drafts.ts).
   */
  readonly systemFields: ReadonlySet<string> = new Set<string>();
  private state: 'opening' | 'open' | 'closing' | 'closed' = 'opening';
  private closing: Promise<void> | null = null;
  /** how many system patches this database has applied */
  patchCount = 0;

  protected constructor(
    readonly name: string,
    readonly options: StackOptions,
    db: Database,
  ) {
    super();
    this.#db = db;
    this.storage = new StackStorage(db);
    this.clock = options.clock ?? systemClock;
    this.changes = new ChangeFeed(db, this.clock);
    this.pipeline = new WritePipeline({ db, lock: writeLockFor(db), feed: this.changes, hooks: this.hooks, stack: this.port, announce: announceChange.bind(this) });
    this.container = createStackContainer({
      [KEYS.stack]: this,
      [KEYS.storage]: this.storage,
      [KEYS.hooks]: this.hooks,
      [KEYS.changeFeed]: this.changes,
      [KEYS.options]: options,
      [KEYS.clock]: this.clock,
    });
  }

  /** This stack as its hooks' contexts name it (the engine's stack is the one implementation). */
  protected get port(): StackPort {
    return this as unknown as StackPort;
  }

  /** Opens a stack: options checked, storage, the layer's stack object, plugins (in requirement order), system patches, then onOpen taps. */
  protected static async openWith<S extends StackCore>(options: StackOptions, layer: StackLayer<S>): Promise<S> {
    if (typeof options.name !== 'string' || !NAME_PATTERN.test(options.name)) {
      throw KERNEL_ERRORS.stackOptionsInvalid(`A stack name must be letters, digits, "_", "." or "-" (got ${JSON.stringify(options.name)}).`, { path: 'name' });
    }
    if (options.clock !== undefined && typeof (options.clock as Partial<Clock> | null)?.now !== 'function') {
      throw KERNEL_ERRORS.stackOptionsInvalid('The clock option must be an object with a now() method returning ms since the epoch.', { path: 'clock' });
    }
    const cache = options.documentCache;
    if (cache !== undefined && cache !== false && !(cache && typeof cache === 'object' && [cache.maxDocuments, cache.maxBytes].every((n) => n === undefined || (Number.isSafeInteger(n) && n >= 0)))) {
      throw KERNEL_ERRORS.stackOptionsInvalid('The documentCache option must be false or { maxDocuments, maxBytes } with whole numbers ≥ 0 (0: keep none).', { path: 'documentCache' });
    }
    const plugins = resolvePlugins(options.plugins ?? []); // refuse a bad preset before touching storage
    const expected = expectedPatchCount(options.patchCount);
    const db = await openDatabase(options);
    const stack = layer.make(db, options);
    try {
      const base = { hooks: stack.hooks, container: stack.container, stack: stack.port, storage: stack.storage, addWritePart: stack.pipeline.addPart.bind(stack.pipeline) };
      const registry: PluginRegistry = {
        apiOf: (name) => stack.apis.get(name),
        hooksOf: (name) => stack.pluginHooks.get(name),
        defineSystemField: (name, owner) => stack.defineSystemField(name, owner),
      };
      for (const { plugin, options: pluginOptions } of plugins) {
        if (plugin.hooks) stack.pluginHooks.set(plugin.name, Object.freeze(plugin.hooks()));
        const api = await plugin.setup(kernelFor(plugin, base, layer.extend, registry), pluginOptions);
        stack.apis.set(plugin.name, api);
        const members = plugin.members?.(api as never) ?? {};
        for (const [member, value] of Object.entries(members)) stack.defineExtension(member, value);
      }
      // the layer's patches, then each plugin's, in set-up order (a plugin's meta-classes come with it)
      const patches = [...layer.patches, ...plugins.flatMap(({ plugin }) => plugin.patches ?? [])];
      stack.patchCount = await applySystemPatches(stack.storage, expected, stack.clock, patches);
      await stack.hooks.onOpen.promise(stack.port);
      stack.state = 'open';
      return stack;
    } catch (err) {
      await stack.shutdown();
      throw err;
    }
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  protected assertOpen(): void {
    // 'closing': onClose taps (a job finishing its run) may still write; storage closes after them
    if (this.state === 'closed') {
      throw KERNEL_ERRORS.stackClosed(`The stack "${this.name}" is closed.`);
    }
  }

  /** The API a plugin's setup returned, when that plugin (by name) is loaded; use `getApi`. */
  apiOf(name: string): unknown {
    return this.apis.get(name);
  }

  /** A plugin's `~` field (kernel.defineSystemField): refused when malformed or taken. */
  private defineSystemField(name: string, owner: string): void {
    const refuse = (why: string) => {
      throw KERNEL_ERRORS.pluginInvalid(`The plugin "${owner}" cannot define the system field ${JSON.stringify(name)}: ${why}.`, { details: { plugin: owner, field: name } });
    };
    if (typeof name !== 'string' || !SYSTEM_FIELD_NAME.test(name)) refuse('a system field is "~", a letter, then letters, digits or "_"');
    if ((SYSTEM_FIELDS as readonly string[]).includes(name)) refuse('the engine has it');
    const taken = this.ownedFields.get(name);
    if (taken) refuse(`the plugin "${taken}" has it`);
    this.ownedFields.set(name, owner);
    (this.systemFields as Set<string>).add(name);
  }

  /**
   * Adds a read-only member to this stack object, refused if the name is taken. Plugins declare
   * theirs with `members` (typed on the stack createStack returns); this is the mechanism.
   */
  defineExtension(name: string, value: unknown): void {
    if (name in this) {
      throw KERNEL_ERRORS.pluginDuplicate(`The stack already has a member named "${name}"; two plugins cannot both add it.`, {
        details: { extension: name },
      });
    }
    Object.defineProperty(this, name, { value, enumerable: true, writable: false, configurable: false });
  }

  /** Internal writes by plugins and patches go through the same pipeline with their origin. */
  writeRequests(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}): Promise<Doc[]> {
    this.assertOpen();
    return this.pipeline.write(requests, origin, extras);
  }

  /** Runs every check of a write (hooks included) without storing anything; returns the checked drafts. */
  checkRequests(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras = {}): Promise<Doc[]> {
    this.assertOpen();
    return this.pipeline.check(requests, origin, extras);
  }

  /** Runs onClose taps, stops every subscription and closes storage. Safe to call twice. */
  close(): Promise<void> {
    if (this.state === 'closed') return Promise.resolve();
    this.closing ??= (async () => {
      this.state = 'closing';
      try {
        await this.hooks.onClose.promise(this.port);
      } finally {
        await this.shutdown();
      }
    })();
    return this.closing;
  }

  /** What the layer above stops or saves before storage closes (its caches, its subscriptions, its checkpoints). */
  protected abstract stopLayer(): Promise<void> | void;

  private async shutdown(): Promise<void> {
    try {
      await this.stopLayer();
    } finally {
      this.changes.close();
    }
    this.state = 'closed';
    try {
      await closeDatabase(this.#db);
    } catch (err) {
      // another instance of the same store (same name, same process) already closed it
      if ((err as { status?: number }).status !== 412) throw err;
    }
    this.emit('closed');
  }
}

/**
 * A stack's `change` event for each document its pipeline stored: one function for every stack,
 * bound to each. It runs on every write, and V8 keeps a function's optimized code only while some
 * function object of its kind lives — a closure per stack was compiled again for each stack
 * opened after a full garbage collection (docs/benchmarks.md#code-shared-by-every-stack).
 */
function announceChange(this: StackCore, event: DocChangeEvent): void {
  this.emit('change', event);
}
