import { asValue } from 'awilix';
import { KERNEL_ERRORS } from '../contracts/errors.js';
import { CLASS_META, SELF_META, type ClassModel, type Doc, type DocOf, type NewDoc, type NewDocOf, type AttributesOf, type DocstackClasses, type MappedClass, type UnmappedClass } from '../contracts/model.js';
import type { FindOptions, GetOptions, Selector } from '../contracts/queries.js';
import { closesOf, type Database } from '../storage/database.js';
import { writeLockFor } from '../storage/write-lock.js';
import { createDocument, createDocuments, firstOf, type CreateDeps, type CreateRequests } from './create-requests.js';
import { KEYS } from '../kernel/container.js';
import { deleteDraft, nowIso, requireObject, updateDraft } from '../kernel/drafts.js';
import { extrasOf, type WriteRequest } from '../kernel/pipeline.js';
import { StackCore, type StackOptions, type WriteOptions } from '../kernel/stack.js';
import { ClassCache } from './class-cache.js';
import { listConflicts, resolveConflict, userClassNames } from './conflicts/api.js';
import type { DocConflict } from './conflicts/list.js';
import type { ConflictResolvedEvent } from './conflicts/resolve.js';
import type { ConflictCase, ConflictEvent, ConflictFailedEvent, ConflictHandler } from './conflicts/auto.js';
import { listDenials, resolveDenial } from './conflicts/denials.js';
import type { Denial } from '../contracts/denials.js';
import { ClassCounts } from './indexes/class-counts.js';
import { ClassNamesIndex } from './indexes/class-names.js';
import { PrimaryKeyIndex } from './indexes/primary-keys.js';
import { Ingestor, type HeldEntry, type IngestOptions, type IngestResult } from './ingest/ingest.js';
import { LiveHub } from './live/live-hub.js';
import type { LiveOptions } from './live/live-order.js';
import type { LiveQuery } from './live/live-query.js';
import type { LiveHandle } from './live/live-handle.js';
import { kernelAttributeTypes } from './model/builtin-types.js';
import { Class } from './model/class.js';
import { purgeDocuments, type StoreDeps } from './purge.js';
import { countDocuments } from './queries/count.js';
import { findClassDocuments, readDocument, refuseTakenIds, requireActive, scanClass } from './queries/reads.js';
import { SYSTEM_PATCHES } from './system-patches/index.js';
import { capabilitiesPart } from './write-parts/capabilities.js';
import { classCountsPart } from './write-parts/class-counts.js';
import { classIdsPart } from './write-parts/class-ids.js';
import { attachmentsPart } from './attachments/check.js';
import { readAttachment, withAttachment, withoutAttachment, type Attachment } from './attachments/api.js';
import type { AttachmentInput } from './attachments/bytes.js';
import { classNamesPart } from './write-parts/class-names.js';
import { primaryKeysPart } from './write-parts/primary-keys.js';

export type { StackOptions, WriteOptions, DocConflict, ConflictResolvedEvent, ConflictCase, ConflictEvent, ConflictFailedEvent, ConflictHandler };

declare module '../contracts/stack-port.js' {
  /** Hook contexts and plugins see the engine's stack (contracts/stack-port.ts). */
  interface StackPort extends ClientStack {}
}

/**
 * A document database on one PouchDB store: the plugin kernel (hooks, container) and the
 * document pipeline. Open it with `createStack` (or `ClientStack.create`); close it with `close`.
 */
export class ClientStack extends StackCore {
  readonly classCache: ClassCache;
  readonly primaryKeys: PrimaryKeyIndex;
  readonly classNames: ClassNamesIndex;
  /** each class's count of active documents (one `_local` counter per class) */
  readonly classCounts: ClassCounts;
  /** what every storing path shares: the store, its key index and counters, and its queue for read-then-write sections */
  readonly #store: StoreDeps;
  readonly #db: Database;
  /** closesOf(store) at open: another stack on the same store that closed it since leaves nothing to write on close */
  readonly #closesAtOpen: number;
  private readonly ingestor: Ingestor;
  private readonly liveClasses = new Map<string, Promise<Class>>();
  /** the open live queries (stack.live) and what they listen to */
  readonly #live = new LiveHub(this);
  /** the attribute types and config keys this stack knows: the engine's and its plugins' */
  readonly attributeTypes = kernelAttributeTypes();

  private constructor(name: string, options: StackOptions, db: Database) {
    super(name, options, db);
    this.#db = db;
    this.#closesAtOpen = closesOf(db);
    const lock = writeLockFor(db); // the same queue as the pipeline's (one per store)
    this.classCache = new ClassCache(db, this.changes, this.clock);
    this.primaryKeys = new PrimaryKeyIndex(db, (n) => this.classCache.get(n), this.clock, (n) => this.classCounts.known(n));
    this.classNames = new ClassNamesIndex(db, lock);
    this.classCounts = new ClassCounts(db, lock);
    this.#store = { db, primaryKeys: this.primaryKeys, counts: this.classCounts, lock };
    // the engine's own share of every write: capability check, key entries, counters, out-of-range ids, the class-name checkpoint (in that order)
    const parts = [capabilitiesPart(this.attributeTypes), primaryKeysPart(this.primaryKeys), classCountsPart(this.classCounts), classIdsPart(db, (n) => this.classCache.get(n)), classNamesPart(this.classNames), attachmentsPart()];
    for (const part of parts) this.pipeline.addPart(part);
    // the counts not yet persisted are stored before storage closes (after the plugins' own closing writes)
    this.hooks.onClose.tapPromise({ name: 'class-counts', stage: 1_000 }, () => this.classCounts.close());
    this.ingestor = new Ingestor({
      ...this.#store,
      hooks: this.hooks,
      classCache: this.classCache,
      stack: this,
      storage: this.storage,
      check: (requests, origin, extras) => this.pipeline.check(requests, origin, extras),
      write: (requests, opts) => this.pipeline.write(requests, opts.origin ?? 'local', extrasOf(opts)),
    });
    for (const [key, value] of [[KEYS.classCache, this.classCache], [KEYS.primaryKeys, this.primaryKeys]] as const) this.container.register(key, asValue(value));
  }

  /** Opens a stack (createStack is the typed way): storage, plugins, system patches, onOpen. */
  static create(name: string, options: Omit<StackOptions, 'name'> & { name?: string }): Promise<ClientStack> {
    let stack: ClientStack;
    return StackCore.openWith({ ...options, name }, {
      make: (db, full) => (stack = new ClientStack(name, full, db)),
      patches: SYSTEM_PATCHES,
      // the class model owns attribute types: a plugin defines its own through its setup context
      extend: (plugin) => ({
        defineAttribute: (definition) => stack.attributeTypes.defineType(definition, plugin.name),
        defineConfigKey: (definition) => stack.attributeTypes.defineKey(definition, plugin.name),
      }),
    });
  }

  // ---- classes ----------------------------------------------------------------------------

  /** The active class model, or DS_CLASS_NOT_FOUND. */
  async requireClass(name: string): Promise<ClassModel> {
    this.assertOpen();
    const model = typeof name === 'string' ? await this.classCache.get(name) : null;
    const isClassDoc = model && (model['~class'] === CLASS_META || model['~class'] === SELF_META);
    if (!model || !isClassDoc || model.active === false) {
      throw KERNEL_ERRORS.classNotFound(`There is no class named ${JSON.stringify(name)}.`, { details: { className: name } });
    }
    return model;
  }

  /** The active class model when the cache holds it fresh (no I/O, no await), else undefined: requireClass then reads. */
  private freshClass(name: string): ClassModel | undefined {
    const model = typeof name === 'string' ? this.classCache.fresh(name) : undefined;
    return model && (model['~class'] === CLASS_META || model['~class'] === SELF_META) && model.active !== false ? model : undefined;
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

  /**
   * Creates a document of `doc['~class']`, typed by the stack's class map (`createStack<P, M>`:
   * a class of M takes and answers M's type) or by the caller: `createDoc<Invoice>({...})`
   * checks the attributes against `Invoice` and answers a `DocOf<Invoice>`
   * (docs/data-model.md#typed-documents).
   */
  createDoc<C extends MappedClass<DocstackClasses>>(doc: NewDocOf<AttributesOf<DocstackClasses, C>> & { '~class': C }, options?: WriteOptions & { id?: string }): Promise<DocOf<AttributesOf<DocstackClasses, C>>>;
  createDoc<T extends object = Record<string, unknown>, C extends string = string>(doc: NewDocOf<T> & { '~class': UnmappedClass<DocstackClasses, C> }, options?: WriteOptions & { id?: string }): Promise<DocOf<T>>;
  createDoc(doc: NewDoc, options: WriteOptions & { id?: string } = {}): Promise<Doc> {
    const input = options.id === undefined ? doc : { ...doc, _id: options.id };
    // Node, open: the pipeline answers the document (no `then` to take it out of a list); else createDocs, which says what a closing stack allows
    return !globalThis.docstackBrowserBuild && this.isOpen ? createDocument(input, this.creates, options) : this.createDocs([input], options).then(firstOf);
  }

  /** All or nothing: every document is validated before any is stored (engine/create-requests.ts; a refusal rejects, never throws). */
  createDocs<T extends object = Record<string, unknown>>(docs: NewDocOf<T>[], options: WriteOptions = {}): Promise<DocOf<T>[]> {
    try {
      this.assertOpen();
      if (!Array.isArray(docs)) throw KERNEL_ERRORS.docInvalid('createDocs takes an array of documents.');
      return createDocuments(docs, this.creates, options) as Promise<DocOf<T>[]>;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  // bound methods, not closures per stack: their code outlives a stack (docs/benchmarks.md#code-shared-by-every-stack)
  private readonly creates: CreateDeps<WriteOptions> = {
    fresh: this.freshClass.bind(this),
    read: this.requireClass.bind(this),
    now: nowIso.bind(null, this.clock),
    systemFields: () => this.systemFields,
    store: this.storeCreates.bind(this),
  };

  private storeCreates(built: CreateRequests, options: WriteOptions, first?: boolean): Promise<Doc[] | Doc> {
    // the usual create names no id: written at once, with no callback made for it (`first`: createDoc's answer, the document)
    if (built.chosenIds.length > 0) return refuseTakenIds(this.#db, built.chosenIds).then(() => this.storeCreates({ requests: built.requests, chosenIds: [] }, options, first));
    return this.pipeline.write(built.requests, options.origin ?? 'local', extrasOf(options), first as true);
  }

  async updateDoc<T extends object = Record<string, unknown>>(id: string, changes: Partial<NoInfer<T>>, options: WriteOptions = {}): Promise<DocOf<T>> {
    return (await this.writeUpdate(id, options, () => requireObject(changes, 'The changes'))) as DocOf<T>;
  }

  /** An update of an active document whose changes are made from it (updateDoc, the attachment calls). */
  private async writeUpdate(id: string, options: WriteOptions, changesOf: (previous: Doc, model: ClassModel) => Record<string, unknown> | Promise<Record<string, unknown>>): Promise<Doc> {
    this.assertOpen();
    const previous = await requireActive(this.storage, id);
    const model = await this.requireClass(previous['~class']);
    const draft = updateDraft(previous, await changesOf(previous, model), nowIso(this.clock), this.systemFields);
    const [updated] = await this.pipeline.write([{ op: 'update', draft, previous, classModel: model }], options.origin ?? 'local', extrasOf(options));
    return updated;
  }

  /** Soft delete: the document stays, with `active: false`, and reads skip it by default. */
  async deleteDocument(id: string, options: WriteOptions = {}): Promise<Doc> {
    this.assertOpen();
    const previous = await requireActive(this.storage, id);
    const model = await this.requireClass(previous['~class']);
    const [deleted] = await this.pipeline.write(
      [{ op: 'delete', draft: deleteDraft(previous, nowIso(this.clock)), previous, classModel: model }],
      options.origin ?? 'local',
      extrasOf(options),
    );
    return deleted;
  }

  /** One document by id, or null (also for an inactive one, unless includeInactive). */
  getDocument<T extends object = Record<string, unknown>>(id: string, options: GetOptions = {}): Promise<DocOf<T> | null> {
    // no async frame (a lookup's cost is its promises); a closed stack still answers by rejecting
    try {
      this.assertOpen();
    } catch (err) {
      return Promise.reject(err);
    }
    if (typeof id !== 'string' || id === '') return Promise.resolve(null);
    return readDocument(this, id, options) as Promise<DocOf<T> | null>;
  }

  /** Documents of a class matching a Mango selector, in `_id` order. */
  findDocuments<C extends MappedClass<DocstackClasses>>(className: C, selector?: Selector, options?: FindOptions): Promise<DocOf<AttributesOf<DocstackClasses, C>>[]>;
  findDocuments<T extends object = Record<string, unknown>>(className: string, selector?: Selector, options?: FindOptions): Promise<DocOf<T>[]>;
  async findDocuments(className: string, selector?: Selector, options: FindOptions = {}): Promise<Doc[]> {
    const model = await this.requireClass(className);
    if (model.name === CLASS_META) return findClassDocuments(this, this.classNames, selector, options);
    return scanClass(this, this.#db, this.hooks, model, selector, options);
  }

  /**
   * A query that follows the store (docs/live-queries.md): `ready` / `current` / `subscribe` give
   * the result of findDocuments now, then a new one once per tick in which a write, an ingest, a
   * transaction or a conflict resolution changed it; `close()` stops it. DS_QUERY_INVALID for a
   * bad selector or options; the class is checked by the first read (DS_CLASS_NOT_FOUND).
   */
  live<C extends MappedClass<DocstackClasses>>(className: C, selector?: Selector, options?: LiveOptions): LiveHandle<DocOf<AttributesOf<DocstackClasses, C>>[]>;
  live<T extends object = Record<string, unknown>>(className: string, selector?: Selector, options?: LiveOptions): LiveHandle<DocOf<T>[]>;
  live(className: string, selector?: Selector, options: LiveOptions = {}): LiveQuery {
    this.assertOpen();
    return this.#live.open(className, selector, options);
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

  // ---- attachments (docs/attachments.md): each put or remove is a write of the owning document

  /** Sets the file of an `attachment` attribute (checked against its maxBytes and types); returns the document. */
  async putAttachment(id: string, name: string, data: AttachmentInput, type: string, options: WriteOptions = {}): Promise<Doc> {
    return this.writeAttachments(id, options, (previous, model) => withAttachment(previous, model, name, data, type));
  }

  /** Removes a document's file; DS_ATTACHMENT_NOT_FOUND when it has none of that name. */
  async removeAttachment(id: string, name: string, options: WriteOptions = {}): Promise<Doc> {
    return this.writeAttachments(id, options, async (previous) => withoutAttachment(previous, name));
  }

  /** A document's file, as readable as the document (a sealed one opened where its key is held). */
  async getAttachment(id: string, name: string): Promise<Attachment> {
    this.assertOpen();
    return readAttachment({ stack: this, storage: this.storage, hooks: this.hooks }, id, name);
  }

  private async writeAttachments(id: string, options: WriteOptions, change: (previous: Doc, model: ClassModel) => Promise<Record<string, unknown>>): Promise<Doc> {
    await this.writeUpdate(id, options, async (previous, model) => ({ _attachments: await change(previous, model) }));
    // read back: the stored stubs (digest, length), not the data the write carried
    return (await this.getDocument(id, { includeInactive: true }))!;
  }

  // ---- conflicts (docs/conflicts.md) -----------------------------------------------------

  /**
   * The documents with unresolved conflicting leaves (two devices edited one document offline):
   * each with its winning and losing revisions' bodies, read as any read (decrypted where the key
   * is here). One class, or every user class (engine and meta classes left out).
   */
  async conflicts(className?: string): Promise<DocConflict[]> {
    this.assertOpen();
    const names = className === undefined ? userClassNames(await this.listClasses()) : [className];
    const models: ClassModel[] = [];
    for (const name of names) models.push(await this.requireClass(name));
    return listConflicts(this, this.#db, models);
  }

  /**
   * Resolves a document's conflict with the chosen or merged body (its attributes become the
   * document's): one revision on top of the winner through the pipeline, the losing leaves
   * deleted, then `conflict:resolved`. DS_CONFLICT_NONE when there is nothing (left) to resolve.
   */
  async resolveConflict(id: string, body: Record<string, unknown>, options: WriteOptions = {}): Promise<Doc> {
    this.assertOpen();
    return resolveConflict(
      {
        db: this.#db,
        lock: this.#store.lock,
        clock: this.clock,
        systemFields: this.systemFields,
        requireClass: (name) => this.requireClass(name),
        write: (requests, opts) => this.pipeline.write(requests, opts.origin ?? 'local', extrasOf(opts)),
        emit: (event, payload) => this.emit(event, payload),
      },
      id,
      body,
      options,
    );
  }

  /**
   * Registers a conflict handler: a class naming it as its policy (`conflicts: name`) has its
   * conflicts resolved by it where they are first seen (docs/conflicts.md). Plugins register
   * theirs in setup; DS_HANDLER_DUPLICATE for a taken name.
   */
  registerConflictHandler(name: string, handler: ConflictHandler): void {
    this.ingestor.registerConflictHandler(name, handler);
  }

  /**
   * The writes of this stack another side refused with a code (a unique value claimed first
   * elsewhere…), kept by the plugins that sync (the `denials` hook): one class, or all. [] when
   * no such plugin is loaded. docs/conflicts.md#denials
   */
  async denials(className?: string): Promise<Denial[]> {
    this.assertOpen();
    return listDenials(this, className);
  }

  /** Forgets a denial (the app changed or removed the document) in the source holding it: false when none did. */
  async resolveDenial(id: string): Promise<boolean> {
    this.assertOpen();
    return resolveDenial(this, id);
  }

  /**
   * Removes documents from storage for good (a real delete, not `active: false`), with their
   * primary-key entries: for ephemeral classes and retention purges. No hooks run; the
   * documents are gone, not changed. Returns how many were removed.
   */
  async purgeDocuments(ids: string[]): Promise<number> {
    this.assertOpen();
    const purged = await purgeDocuments(this.storage, this.classCache, this.#store, ids);
    this.#live.reread(ids); // a purge announces no change: the live queries holding them read them again (gone)
    if (purged > 0) this.emit('purged', { ids: [...ids], count: purged });
    return purged;
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
    if (!Array.isArray(docs)) throw KERNEL_ERRORS.docInvalid('ingest takes an array of documents.');
    return this.ingestor.ingest(docs, options);
  }

  /** The peers' documents held here, waiting for a class, a document, a domain (docs/replication.md). */
  heldDocuments(): Promise<HeldEntry[]> {
    this.assertOpen();
    return this.ingestor.heldDocuments();
  }

  protected async stopLayer(): Promise<void> {
    // the class-name checkpoint as far as this stack's writes moved it, so the next open reads nothing back
    if (closesOf(this.#db) === this.#closesAtOpen) await this.#store.lock(() => this.classNames.persist()).catch(() => undefined);
    for (const live of this.liveClasses.values()) live.then((c) => c.unsubscribe(), () => undefined);
    this.liveClasses.clear();
    this.classCache.close();
  }
}
