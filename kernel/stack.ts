import { EventEmitter } from 'events';
import type { AwilixContainer } from 'awilix';
import { ChangeFeed } from '../storage/change-feed.js';
import { ClassCache } from '../engine/class-cache.js';
import { systemClock, type Clock } from './clock.js';
import { createStackContainer, KEYS } from './container.js';
import { classNameOf, createDraft, deleteDraft, nowIso, requireObject, updateDraft } from './drafts.js';
import { DocstackError } from './errors.js';
import { createHooks, type KernelHooks, type WriteOrigin } from './hooks.js';
import { ClassNamesIndex } from '../engine/indexes/class-names.js';
import { ClassCounts } from '../engine/indexes/class-counts.js';
import { countDocuments } from '../engine/queries/count.js';
import { PrimaryKeyIndex } from '../engine/indexes/primary-keys.js';
import { writeLockFor } from '../storage/write-lock.js';
import { Ingestor, type HeldEntry, type IngestOptions, type IngestResult } from '../engine/ingest/ingest.js';
import { Class } from '../engine/model/class.js';
import { CLASS_META, SELF_META, type ClassModel, type Doc, type NewDoc } from '../contracts/model.js';
import { extrasOf, WritePipeline, type WriteExtras, type WriteRequest } from './pipeline.js';
import type { StoreDeps } from './pipeline-store.js';
import { purgeDocuments } from '../engine/purge.js';
import { kernelFor, resolvePlugins, type Plugin, type PluginEntry, type PluginMembers } from './plugin.js';
import { findClassDocuments, readDocument, refuseTakenIds, scanClass, type FindOptions, type GetOptions } from '../engine/queries/reads.js';
import type { Selector } from '../engine/queries/selector.js';
import { openDatabase, type AdapterName, type Database } from '../storage/database.js';
import { StackStorage, type Storage } from '../storage/facade.js';
import { SYSTEM_PATCHES } from '../engine/system-patches/index.js';
import { applySystemPatches, expectedPatchCount } from './system-patches.js';
import { kernelAttributeTypes } from '../engine/model/builtin-types.js';

export interface StackOptions {
  name: string;
  adapter: AdapterName;
  /** leveldb: folder holding the database folder (default ./data) */
  dataDir?: string;
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

/**
 * A document database on one PouchDB store: the plugin kernel (hooks, container) and the
 * document pipeline. Open it with `createStack` (or `ClientStack.create`); close it with `close`.
 */
export class ClientStack extends EventEmitter {
  readonly hooks: KernelHooks = createHooks();
  readonly container: AwilixContainer;
  /** the store as plugins and the server see it; the PouchDB store itself stays the kernel's */
  readonly storage: Storage;
  readonly #db: Database;
  readonly changes: ChangeFeed;
  readonly classCache: ClassCache;
  readonly primaryKeys: PrimaryKeyIndex;
  readonly classNames: ClassNamesIndex;
  /** each class's count of active documents (one `_local` counter per class) */
  readonly classCounts: ClassCounts;
  /** what every storing path shares: the store, its key index and counters, and its queue for read-then-write sections */
  readonly #store: StoreDeps;
  /** the stack's clock (StackOptions.clock, or the wall clock) */
  readonly clock: Clock;
  private readonly pipeline: WritePipeline;
  private readonly ingestor: Ingestor;
  private readonly liveClasses = new Map<string, Promise<Class>>();
  /** the attribute types and config keys this stack knows: the kernel's and its plugins' */
  readonly attributeTypes = kernelAttributeTypes();
  /** what each plugin's setup returned, by plugin name (read with getApi) */
  private readonly apis = new Map<string, unknown>();
  private state: 'opening' | 'open' | 'closing' | 'closed' = 'opening';
  private closing: Promise<void> | null = null;
  /** how many system patches this database has applied */
  patchCount = 0;

  private constructor(
    readonly name: string,
    readonly options: StackOptions,
    db: Database,
  ) {
    super();
    this.#db = db;
    this.storage = new StackStorage(db);
    this.clock = options.clock ?? systemClock;
    this.changes = new ChangeFeed(db, this.clock);
    this.classCache = new ClassCache(db, this.changes, this.clock);
    this.primaryKeys = new PrimaryKeyIndex(db, (n) => this.classCache.get(n), this.clock);
    this.classNames = new ClassNamesIndex(db);
    const lock = writeLockFor(db);
    this.classCounts = new ClassCounts(db, lock);
    this.#store = { db, primaryKeys: this.primaryKeys, counts: this.classCounts, lock };
    this.pipeline = new WritePipeline({ ...this.#store, hooks: this.hooks, feed: this.changes, stack: this });
    this.ingestor = new Ingestor({
      ...this.#store,
      hooks: this.hooks,
      classCache: this.classCache,
      stack: this,
      storage: this.storage,
      check: (requests, origin, extras) => this.pipeline.check(requests, origin, extras),
    });
    this.container = createStackContainer({
      [KEYS.stack]: this,
      [KEYS.storage]: this.storage,
      [KEYS.hooks]: this.hooks,
      [KEYS.changeFeed]: this.changes,
      [KEYS.classCache]: this.classCache,
      [KEYS.primaryKeys]: this.primaryKeys,
      [KEYS.options]: options,
      [KEYS.clock]: this.clock,
    });
  }

  static async create(name: string, options: Omit<StackOptions, 'name'> & { name?: string }): Promise<ClientStack> {
    const full: StackOptions = { ...options, name };
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
      throw new DocstackError('DS_STACK_OPTIONS_INVALID', `A stack name must be letters, digits, "_", "." or "-" (got ${JSON.stringify(name)}).`, { path: 'name' });
    }
    if (full.clock !== undefined && typeof (full.clock as Partial<Clock> | null)?.now !== 'function') {
      throw new DocstackError('DS_STACK_OPTIONS_INVALID', 'The clock option must be an object with a now() method returning ms since the epoch.', { path: 'clock' });
    }
    const plugins = resolvePlugins(full.plugins ?? []); // refuse a bad preset before touching storage
    const expected = expectedPatchCount(full.patchCount);
    const db = await openDatabase(full);
    const stack = new ClientStack(name, full, db);
    try {
      const base = { hooks: stack.hooks, container: stack.container, stack, storage: stack.storage };
      for (const { plugin, options: pluginOptions } of plugins) {
        const api = await plugin.setup(kernelFor(plugin, base, (name) => stack.apis.get(name)), pluginOptions);
        stack.apis.set(plugin.name, api);
        const members = plugin.members?.(api as never) ?? {};
        for (const [member, value] of Object.entries(members)) stack.defineExtension(member, value);
      }
      // the kernel's patches, then each plugin's, in set-up order (a plugin's meta-classes come with it)
      const patches = [...SYSTEM_PATCHES, ...plugins.flatMap(({ plugin }) => plugin.patches ?? [])];
      stack.patchCount = await applySystemPatches(stack.storage, expected, stack.clock, patches);
      await stack.hooks.onOpen.promise(stack);
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

  private assertOpen(): void {
    // 'closing': onClose taps (a job finishing its run) may still write; storage closes after them
    if (this.state === 'closed') {
      throw new DocstackError('DS_STACK_CLOSED', `The stack "${this.name}" is closed.`);
    }
  }

  // ---- classes ----------------------------------------------------------------------------

  /** The active class model, or DS_CLASS_NOT_FOUND. */
  async requireClass(name: string): Promise<ClassModel> {
    this.assertOpen();
    const model = typeof name === 'string' ? await this.classCache.get(name) : null;
    const isClassDoc = model && (model['~class'] === CLASS_META || model['~class'] === SELF_META);
    if (!model || !isClassDoc || model.active === false) {
      throw new DocstackError('DS_CLASS_NOT_FOUND', `There is no class named ${JSON.stringify(name)}.`, { details: { className: name } });
    }
    return model;
  }

  /** A live class object (follows changes by other writers), shared per name; `fresh` re-reads. */
  async getClass(name: string, fresh = false): Promise<Class> {
    this.assertOpen();
    let live = this.liveClasses.get(name);
    if (live && fresh) {
      this.classCache.invalidate(name);
      await (await live).refresh();
      return live;
    }
    if (!live) {
      live = Class.fetch(this, name, { subscribe: true });
      this.liveClasses.set(name, live);
      live.catch(() => this.liveClasses.delete(name));
    }
    return live;
  }

  /** A class object without a subscription: the model as it is now. */
  async getClassSnapshot(name: string): Promise<Class> {
    return Class.fetch(this, name, { subscribe: false });
  }

  /** Names of the active classes, meta-classes included. */
  async listClasses(): Promise<string[]> {
    this.assertOpen();
    return this.classNames.list();
  }

  // ---- documents ---------------------------------------------------------------------------

  async createDoc(doc: NewDoc, options: WriteOptions & { id?: string } = {}): Promise<Doc> {
    const [created] = await this.createDocs([options.id === undefined ? doc : { ...doc, _id: options.id }], options);
    return created;
  }

  /** All or nothing: every document is validated before any is stored. */
  async createDocs(docs: NewDoc[], options: WriteOptions = {}): Promise<Doc[]> {
    this.assertOpen();
    if (!Array.isArray(docs)) throw new DocstackError('DS_DOC_INVALID', 'createDocs takes an array of documents.');
    const now = nowIso(this.clock);
    const requests: WriteRequest[] = [];
    const chosenIds: string[] = [];
    const models = new Map<string, ClassModel>(); // one class lookup per class per call
    for (const input of docs) {
      const doc = requireObject(input, 'A document');
      const className = classNameOf(doc);
      let model = models.get(className);
      if (!model) models.set(className, (model = await this.requireClass(className)));
      const draft = createDraft(doc, model, undefined, now);
      if (doc._id !== undefined) chosenIds.push(draft._id);
      requests.push({ op: 'create', draft, classModel: model });
    }
    await refuseTakenIds(this.#db, chosenIds);
    return this.pipeline.write(requests, options.origin ?? 'local', extrasOf(options));
  }

  async updateDoc(id: string, changes: Record<string, unknown>, options: WriteOptions = {}): Promise<Doc> {
    this.assertOpen();
    const previous = await this.requireActive(id);
    const model = await this.requireClass(previous['~class']);
    const draft = updateDraft(previous, requireObject(changes, 'The changes'), nowIso(this.clock));
    const [updated] = await this.pipeline.write([{ op: 'update', draft, previous, classModel: model }], options.origin ?? 'local', extrasOf(options));
    return updated;
  }

  /** Soft delete: the document stays, with `active: false`, and reads skip it by default. */
  async deleteDocument(id: string, options: WriteOptions = {}): Promise<Doc> {
    this.assertOpen();
    const previous = await this.requireActive(id);
    const model = await this.requireClass(previous['~class']);
    const [deleted] = await this.pipeline.write(
      [{ op: 'delete', draft: deleteDraft(previous, nowIso(this.clock)), previous, classModel: model }],
      options.origin ?? 'local',
      extrasOf(options),
    );
    return deleted;
  }

  /** One document by id, or null (also for an inactive one, unless includeInactive). */
  async getDocument(id: string, options: GetOptions = {}): Promise<Doc | null> {
    this.assertOpen();
    if (typeof id !== 'string' || id === '') return null;
    return readDocument(this, id, options);
  }

  /** Documents of a class matching a Mango selector, in `_id` order. */
  async findDocuments(className: string, selector?: Selector, options: FindOptions = {}): Promise<Doc[]> {
    const model = await this.requireClass(className);
    if (model.name === CLASS_META) return findClassDocuments(this, this.classNames, selector, options);
    return scanClass(this, this.#db, this.hooks, model, selector, options);
  }

  /**
   * How many active documents of the class match the selector (all of them without one): the
   * class's counter for a whole class (constant time, no document read), the primary-key index
   * for a selector naming a whole key, an index plugin's candidates (findCandidates) else.
   */
  async countDocuments(className: string, selector?: Selector): Promise<number> {
    const model = await this.requireClass(className);
    return countDocuments(this, this.#db, model, selector);
  }

  private async requireActive(id: string): Promise<Doc> {
    const previous = typeof id === 'string' && id !== '' ? await this.storage.get(id) : null;
    if (!previous || previous.active === false || typeof previous['~class'] !== 'string') {
      throw new DocstackError('DS_DOC_NOT_FOUND', `There is no active document with the id ${JSON.stringify(id)}.`, { details: { id } });
    }
    return previous;
  }

  /**
   * Removes documents from storage for good (a real delete, not `active: false`), with their
   * primary-key entries: for ephemeral classes and retention purges. No hooks run; the
   * documents are gone, not changed. Returns how many were removed.
   */
  async purgeDocuments(ids: string[]): Promise<number> {
    this.assertOpen();
    return purgeDocuments(this.storage, this.classCache, this.#store, ids);
  }

  /**
   * Stores documents a peer made, with their revisions (`newEdits: false` by default): each is
   * admitted (the `admit` hook: the node's authorization), validated as a write of its origin,
   * its primary key claimed, then stored as it came and announced (`change`, afterWrite). The
   * one path for replicated documents (the node's endpoint, `stack.sync`). A refused document
   * gets its own result line; one waiting for something not here yet is held (heldDocuments).
   */
  async ingest(docs: readonly unknown[], options: IngestOptions = {}): Promise<IngestResult[]> {
    this.assertOpen();
    if (!Array.isArray(docs)) throw new DocstackError('DS_DOC_INVALID', 'ingest takes an array of documents.');
    return this.ingestor.ingest(docs, options);
  }

  /** The peers' documents held here, waiting for a class, a document, a domain (docs/replication.md). */
  heldDocuments(): Promise<HeldEntry[]> {
    this.assertOpen();
    return this.ingestor.heldDocuments();
  }

  // ---- extensions --------------------------------------------------------------------------

  /** The API a plugin's setup returned, when that plugin (by name) is loaded; use `getApi`. */
  apiOf(name: string): unknown {
    return this.apis.get(name);
  }

  /**
   * Adds a read-only member to this stack object, refused if the name is taken. Plugins declare
   * theirs with `members` (typed on the stack createStack returns); this is the mechanism.
   */
  defineExtension(name: string, value: unknown): void {
    if (name in this) {
      throw new DocstackError('DS_PLUGIN_DUPLICATE', `The stack already has a member named "${name}"; two plugins cannot both add it.`, {
        details: { extension: name },
      });
    }
    Object.defineProperty(this, name, { value, enumerable: true, writable: false, configurable: false });
  }

  // ---- life cycle --------------------------------------------------------------------------

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
        await this.hooks.onClose.promise(this);
      } finally {
        await this.shutdown();
      }
    })();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    for (const live of this.liveClasses.values()) live.then((c) => c.unsubscribe(), () => undefined);
    this.liveClasses.clear();
    this.classCache.close();
    this.changes.close();
    this.state = 'closed';
    try {
      await this.#db.close();
    } catch (err) {
      // another instance of the same store (same name, same process) already closed it
      if ((err as { status?: number }).status !== 412) throw err;
    }
    this.emit('closed');
  }
}

/** A stack opened with the plugins P: ClientStack plus the members those plugins add. */
export type StackWith<P extends readonly PluginEntry[]> = ClientStack & PluginMembers<P>;

/**
 * Opens a stack: storage, plugins (in requirement order), system patches, then onOpen taps.
 * Its type carries the members of the plugins given (`stack.sync` only with the sync plugin).
 */
export async function createStack<const P extends readonly PluginEntry[] = []>(options: Omit<StackOptions, 'plugins'> & { plugins?: P }): Promise<StackWith<P>> {
  if (!options || typeof options !== 'object') {
    throw new DocstackError('DS_STACK_OPTIONS_INVALID', 'createStack needs an options object with name and adapter.');
  }
  return (await ClientStack.create(options.name, options)) as StackWith<P>;
}

/**
 * The API of a plugin on a stack, typed by the plugin object; undefined when the stack does not
 * load a plugin of that name. `getApi(stack, jobsPlugin)?.run('nightly')`.
 */
export function getApi<Api>(stack: ClientStack, plugin: Plugin<any, Api, any>): Api | undefined {
  return stack.apiOf(plugin.name) as Api | undefined;
}
