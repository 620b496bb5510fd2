import { EventEmitter } from 'events';
import { nowIso, isPlainObject, naturalIdOf } from '../../kernel/drafts.js';
import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import { revNumber } from '../class-cache.js';
import { whileObserved } from './observed.js';
import { claimFor, keyIdOf, primaryKeyValues, uniqueViolation } from '../indexes/primary-keys.js';
import type { Selector } from '../queries/selector.js';
import { readDocument } from '../queries/reads.js';
import type { LiveOptions } from '../live/live-order.js';
import type { LiveHandle } from '../live/live-handle.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { ClassSchema } from '../../contracts/hooks.js';
import { checkDefaultValue, ruleContext } from './attribute.js';
import { normalizeAttribute } from './attribute-rules.js';
import { CLASS_META, DOMAIN_META, primaryKeyAttributes, SELF_META, type AttributeModel, type ClassModel, type ClassOptions, type ConflictPolicy, type Doc, type DocOf } from '../../contracts/model.js';
import { checkConflictPolicy } from './conflict-policy.js';
import { toClassDocument, toClassModel, toFlatAttribute } from './attribute-shape.js';

const CLASS_NAME = /^~?[A-Za-z][A-Za-z0-9_]*$/;
/** Fields of a document that addOrUpdateCard leaves to the engine. */
const ENGINE_FIELDS = ['_rev', '~class', '~createTimestamp', '~updateTimestamp', 'active'];

export interface FetchOptions {
  /** follow changes made by other writers (default true, as SPEC's `Class.fetch` loads "with a live subscription"; a live object listens only while observed) */
  subscribe?: boolean;
}

/** Do the params leave out this key attribute (undefined or null)? getByPrimaryKeys refuses them. */
const keyMissing = (params: Record<string, unknown> | undefined, a: AttributeModel): boolean => params?.[a.name] === undefined || params[a.name] === null;

/**
 * A class: its model (the class document) plus the card operations on its documents.
 *
 * A live class object (`stack.getClass`, `Class.fetch` unless `{ subscribe: false }`) follows its
 * class document as it changes, here or by another writer of the store, and emits:
 * - `model` (ClassModel): the class document changed;
 * - `change` ({ id, rev, deleted }): a document of the class changed.
 * It listens to the stack's change feed while it has `model` or `change` listeners; without
 * listeners its `model` follows the stack's class cache, which is never more than a second
 * behind another writer (see engine/class-cache.ts) — so an idle class object costs nothing.
 */
export class Class extends EventEmitter {
  private current: ClassModel;
  private following = false;
  private stopObserving: (() => void) | null = null;

  private constructor(
    readonly stack: StackPort,
    model: ClassModel,
  ) {
    super();
    this.current = model;
  }

  get name(): string {
    return this.current.name;
  }

  /** The newest model this object knows: its own, or (live objects) the stack's cached one if newer. */
  get model(): ClassModel {
    if (this.following) {
      const cached = this.stack.classCache.peek(this.current.name);
      if (cached && revNumber(cached._rev) > revNumber(this.current._rev)) this.current = cached;
    }
    return this.current;
  }

  /**
   * The zod schema of this class's documents that the validator answering the `classSchema`
   * hook builds (the validation plugin: docs/data-model.md#schemazod): `safeParse(doc)` accepts
   * and refuses what a create through the pipeline does for the synchronous rules. Built for
   * the model this object holds now, so it follows the class as it changes; undefined on a
   * stack without a validator.
   */
  get schemaZOD(): ClassSchema | undefined {
    return this.stack.hooks.classSchema.call(this.model);
  }

  static async create(
    stack: StackPort,
    name: string,
    type: string = CLASS_META,
    description = '',
    schema: Record<string, Record<string, unknown>> | Record<string, unknown>[] = {},
    options: ClassOptions = {},
  ): Promise<Class> {
    if (type !== CLASS_META) throw KERNEL_ERRORS.classInvalid(`Class.create makes documents of the "class" meta-class, not "${type}".`, { path: 'type' });
    if (typeof name !== 'string' || !CLASS_NAME.test(name) || name.length > 64 || name === CLASS_META || name === DOMAIN_META || name === SELF_META) {
      throw KERNEL_ERRORS.classInvalid(`A class name starts with a letter (or "~" for system classes) and holds letters, digits and "_" only (got ${JSON.stringify(name)}).`, { path: 'name' });
    }
    if (typeof description !== 'string') throw KERNEL_ERRORS.classInvalid('A class description is a string.', { path: 'description' });
    const model = buildClassModel(name, description, options, nowIso(stack.clock));
    if (model.parentClass !== null) await stack.requireClass(model.parentClass);
    const existing = await stack.storage.get(name);
    if (existing) throw KERNEL_ERRORS.classExists(`A class named "${name}" already exists.`, { details: { className: name } });

    const entries = Array.isArray(schema) ? schema.map((a) => [a.name, a] as const) : Object.entries(schema).map(([k, a]) => [k, { name: k, ...a }] as const);
    const rules = ruleContext(stack, model);
    for (const [key, input] of entries) {
      if (!isPlainObject(input)) throw KERNEL_ERRORS.attributeInvalid(`The attribute "${String(key)}" must be an object.`, { path: String(key) });
      const attribute = await normalizeAttribute(toFlatAttribute(input, String(key)), rules);
      if (model.schema[attribute.name]) throw KERNEL_ERRORS.attributeExists(`The attribute "${attribute.name}" is defined twice.`, { path: attribute.name });
      model.schema[attribute.name] = attribute;
    }
    await checkDefaults(stack, model);
    try {
      model._rev = await stack.storage.put(toClassDocument(model));
    } catch (err) {
      if ((err as { status?: number }).status === 409) throw KERNEL_ERRORS.classExists(`A class named "${name}" already exists.`, { details: { className: name } });
      throw err;
    }
    stack.classCache.set(model);
    // the class-name index reads its own put now (one change), not later with the pipeline's writes since
    await stack.classNames.list();
    return stack.getClass(name);
  }

  /**
   * The class if it exists (as it is), else creates it: for plugins that own system classes
   * (`~Job`, `~TriggerFailure`…) and make sure of them when a stack opens. Concurrent
   * creators (two instances of one store) end up with the one class.
   */
  static async ensure(
    stack: StackPort,
    name: string,
    description: string,
    schema: Record<string, Record<string, unknown>>,
    options: ClassOptions = {},
  ): Promise<Class> {
    const existing = await stack.classCache.get(name);
    if (existing && existing.active !== false) return stack.getClass(name);
    try {
      return await Class.create(stack, name, CLASS_META, description, schema, options);
    } catch (err) {
      if ((err as DocstackError).code === 'DS_CLASS_EXISTS') return stack.getClass(name);
      throw err;
    }
  }

  static async fetch(stack: StackPort, name: string, options: FetchOptions = {}): Promise<Class> {
    const model = await stack.requireClass(name);
    return Class.buildFromModel(stack, model, { subscribe: options.subscribe ?? true });
  }

  static buildFromModel(stack: StackPort, model: ClassModel, options: FetchOptions = {}): Class {
    const cls = new Class(stack, model);
    if (options.subscribe) cls.subscribe();
    return cls;
  }

  private subscribe(): void {
    if (this.following) return;
    this.following = true;
    this.stopObserving = whileObserved(this, ['model', 'change'], () => this.listen());
  }

  private listen(): () => void {
    const prefix = `${this.name}-`;
    const stop = this.stack.changes.subscribe((change) => {
      const { id, rev, deleted } = change;
      const head = id.slice(0, id.indexOf('-'));
      if (id === this.name && rev !== this.current._rev) {
        void this.refresh().catch(() => undefined);
      } else if (id.startsWith(prefix)) {
        this.emit('change', { id, rev, deleted });
      } else if (head && !/^[_~]/.test(id) && !this.stack.classCache.peek(head)) {
        // maybe an id given outside the range (not `<KnownClass>-…`): the class's list names it (storage/class-ids.ts)
        void this.stack.storage.outsideIds(this.name).then((ids) => ids.includes(id) && this.emit('change', { id, rev, deleted }), () => undefined);
      }
    });
    // changes made before we listened are not replayed; catch up with the class document once
    void this.refresh().catch(() => undefined);
    return stop;
  }

  /** Stops following changes (live class objects are stopped by stack.close). */
  unsubscribe(): void {
    this.stopObserving?.();
    this.stopObserving = null;
    this.following = false;
  }

  /** Re-reads the class document. */
  async refresh(): Promise<ClassModel> {
    const stored = await this.stack.storage.get<ClassModel>(this.name);
    const model = stored && toClassModel(stored);
    if (model && model._rev !== this.current._rev) {
      this.current = model;
      this.stack.classCache.set(model);
      this.emit('model', model);
    }
    return this.current;
  }

  /**
   * Applies a change to the stored class document (re-read first, so concurrent edits by
   * other writers are not lost; one retry on a conflict). Used by Attribute.create and plugins.
   */
  async saveModel(change: (model: ClassModel) => ClassModel | Promise<ClassModel>): Promise<ClassModel> {
    for (let attempt = 0; ; attempt++) {
      const stored = await this.stack.storage.get<ClassModel>(this.name);
      if (!stored || stored.active === false) throw KERNEL_ERRORS.classNotFound(`There is no class named "${this.name}".`);
      const next = await change(structuredClone(toClassModel(stored)));
      next['~updateTimestamp'] = nowIso(this.stack.clock);
      try {
        next._rev = await this.stack.storage.put(toClassDocument(next));
        this.current = next;
        this.stack.classCache.set(next);
        this.emit('model', next);
        return next;
      } catch (err) {
        if ((err as { status?: number }).status !== 409 || attempt >= 2) throw err;
      }
    }
  }

  /**
   * Changes how concurrent edits of this class's documents merge (docs/conflicts.md): stored in
   * the class document, so it replicates with it; conflicts already listed stay listed.
   */
  async setConflictPolicy(policy: ConflictPolicy): Promise<ClassModel> {
    const checked = checkConflictPolicy(policy);
    return this.saveModel((model) => ({ ...model, conflicts: checked }));
  }

  // ---- cards (documents of this class) -----------------------------------------------------

  /** Updates the document named by `_id` or by the primary key in params; creates it otherwise. */
  addOrUpdateCard<T extends object = Record<string, unknown>>(params: Partial<NoInfer<T>> & { _id?: string }): Promise<DocOf<T>>;
  async addOrUpdateCard(params: Record<string, unknown>): Promise<Doc> {
    if (!isPlainObject(params)) throw KERNEL_ERRORS.docInvalid('addOrUpdateCard takes an object of attributes.');
    const attributes = Object.fromEntries(Object.entries(params).filter(([k]) => !ENGINE_FIELDS.includes(k)));
    let id = typeof params._id === 'string' ? params._id : null;
    if (!id && primaryKeyAttributes(this.current).length > 0 && primaryKeyValues(this.current, params)) {
      id = (await this.getByPrimaryKeys(params))?._id ?? null;
    }
    const existing = id ? await this.stack.getDocument(id) : null;
    if (existing) {
      const { _id, ...changes } = attributes;
      return this.stack.updateDoc(existing._id, changes);
    }
    return this.stack.createDoc({ ...attributes, '~class': this.name });
  }

  /**
   * The active document whose primary key equals the given values, never by a scan: the key's
   * natural id first (one read: a document created under it holds it, keys being immutable), then
   * the key index, for documents with other ids (random ids of older stores, an explicit `_id`).
   */
  getByPrimaryKeys<T extends object = Record<string, unknown>>(params: Partial<NoInfer<T>>): Promise<DocOf<T> | null>;
  getByPrimaryKeys(params: Record<string, unknown>): Promise<Doc | null> {
    // no async frame while the natural id answers (the usual lookup): one read, its promise the caller's
    try {
      const model = this.current;
      const keyAttributes = primaryKeyAttributes(model);
      if (keyAttributes.length === 0) throw KERNEL_ERRORS.queryInvalid(`The class "${this.name}" has no primary key.`);
      // a loop, not `some` with an arrow: every lookup passes here, and the arrow was a closure each time
      for (const a of keyAttributes) if (keyMissing(params, a)) this.refuseMissingKey(keyAttributes, params);
      const natural = naturalIdOf(model, params);
      if (!natural) return this.byKeyIndex(model, params, undefined);
      const found = (doc: Doc | null) => (this.holdsKey(model, params, doc) ? doc : this.byKeyIndex(model, params, natural));
      // an open stack reads in one promise; else getDocument answers as it does (a closed stack: DS_STACK_CLOSED)
      return this.stack.isOpen ? readDocument(this.stack, natural, {}, found) : this.stack.getDocument(natural).then(found);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private refuseMissingKey(keyAttributes: readonly AttributeModel[], params: Record<string, unknown> | undefined): never {
    const names = keyAttributes.filter((a) => keyMissing(params, a)).map((a) => a.name);
    throw KERNEL_ERRORS.queryInvalid(`getByPrimaryKeys needs ${names.join(', ')}.`, { path: names.join(',') });
  }

  /**
   * Does this stored document hold the key the params give? Every key value the very one asked
   * (the usual answer) or, for values that differ as objects, the same key id.
   */
  private holdsKey(model: ClassModel, params: Record<string, unknown>, doc: Doc | null): doc is Doc {
    if (!doc || doc['~class'] !== this.name) return false;
    if (primaryKeyAttributes(model).every((a) => doc[a.name] === params[a.name])) return true;
    return claimFor(model, doc)?.keyId === keyIdOf(this.name, primaryKeyValues(model, params)!);
  }

  /** getByPrimaryKeys past the natural id: the owner this stack last saw (one read while it holds), then the key index. */
  private async byKeyIndex(model: ClassModel, params: Record<string, unknown>, natural: string | undefined): Promise<Doc | null> {
    const values = primaryKeyValues(model, params)!;
    const keyId = keyIdOf(this.name, values);
    const hinted = this.stack.primaryKeys.hint(keyId);
    if (hinted && hinted !== natural) {
      const doc = await this.stack.getDocument(hinted);
      if (this.holdsKey(model, params, doc)) return doc;
    }
    const id = await this.stack.primaryKeys.lookup(this.name, values, natural !== undefined);
    if (!id || id === hinted || id === natural) return null;
    const doc = await this.stack.getDocument(id);
    // an entry left stale by a crash never answers for another key
    return this.holdsKey(model, params, doc) ? doc : null;
  }

  getCards<T extends object = Record<string, unknown>>(selector?: Selector, fields?: string[], skip?: number, limit?: number): Promise<DocOf<T>[]>;
  getCards(selector?: Selector, fields?: string[], skip?: number, limit?: number): Promise<Doc[]> {
    return this.stack.findDocuments(this.name, selector, { fields, skip, limit });
  }

  /** A live query of this class's documents: see stack.live (docs/live-queries.md). */
  live<T extends object = Record<string, unknown>>(selector?: Selector, options?: LiveOptions): LiveHandle<DocOf<T>[]> {
    // the class's name is a string here: the type parameter, not the map, types its documents
    return this.stack.live<T>(this.name, selector, options);
  }

  /** How many active documents of this class match the selector (all without one); see stack.countDocuments. */
  count(selector?: Selector): Promise<number> {
    return this.stack.countDocuments(this.name, selector);
  }

  /** One active document of this class, or null. */
  get<T extends object = Record<string, unknown>>(id: string): Promise<DocOf<T> | null>;
  async get(id: string): Promise<Doc | null> {
    const doc = await this.stack.getDocument(id);
    return doc && doc['~class'] === this.name ? doc : null;
  }

  deleteCard<T extends object = Record<string, unknown>>(id: string): Promise<DocOf<T>>;
  async deleteCard(id: string): Promise<Doc> {
    const doc = await this.get(id);
    if (!doc) throw KERNEL_ERRORS.docNotFound(`There is no active ${this.name} with the id ${JSON.stringify(id)}.`, { details: { id } });
    return this.stack.deleteDocument(id);
  }

  /** Resolves true when no other active document has this document's primary key; else DS_UNIQUE_VIOLATION. */
  async uniqueCheck(doc: Record<string, unknown>): Promise<true> {
    const claim = claimFor(this.current, { ...doc, _id: typeof doc._id === 'string' ? doc._id : '' } as Doc);
    if (!claim) return true;
    const owner = await this.stack.primaryKeys.ownerOf(claim);
    if (owner) throw uniqueViolation(claim, owner);
    return true;
  }
}

function buildClassModel(name: string, description: string, options: ClassOptions, now: string): ClassModel {
  if (!isPlainObject(options)) throw KERNEL_ERRORS.classInvalid('Class options must be an object.', { path: 'options' });
  const flag = (key: 'simple' | 'ephemeral') => {
    const v = options[key];
    if (v !== undefined && typeof v !== 'boolean') throw KERNEL_ERRORS.classInvalid(`"${key}" must be true or false.`, { path: key });
    return v === true;
  };
  const tenants = options.tenants ?? [];
  if (!Array.isArray(tenants) || tenants.some((t) => typeof t !== 'string')) throw KERNEL_ERRORS.classInvalid('"tenants" must be a list of strings.', { path: 'tenants' });
  for (const key of ['parentClass', 'defaultScope'] as const) {
    const v = options[key];
    if (v !== undefined && v !== null && (typeof v !== 'string' || v === '')) throw KERNEL_ERRORS.classInvalid(`"${key}" must be a non-empty string or null.`, { path: key });
  }
  return {
    _id: name,
    '~class': CLASS_META,
    '~createTimestamp': now,
    active: true,
    name,
    description,
    parentClass: (options.parentClass as string | null | undefined) ?? null,
    schema: {},
    triggers: [],
    simple: flag('simple'),
    ephemeral: flag('ephemeral'),
    tenants: [...tenants],
    defaultScope: (options.defaultScope as string | null | undefined) ?? null,
    // stored only when chosen: a class without it is 'manual', as are older class documents
    ...(options.conflicts !== undefined ? { conflicts: checkConflictPolicy(options.conflicts) } : {}),
  };
}

async function checkDefaults(stack: StackPort, model: ClassModel): Promise<void> {
  for (const attribute of Object.values(model.schema)) await checkDefaultValue(stack, model, attribute);
}
