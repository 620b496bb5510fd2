import { TX_ERRORS } from './errors.js';
import type { Journal } from './journal.js';
import { TxClass } from './tx-class.js';
import { KERNEL_ERRORS, type ClassModel, type ClientStack, type Doc, type DocOf, type FindOptions, type GetOptions, type NewDoc, type NewDocOf, type Selector, type WriteOp, type WriteSession } from '../../index.js';
import { checkFindOptions, claimFor, classNameOf, compileSelector, createDraft, deleteDraft, type KeyClaim, nowIso, projectFields, requireObject, updateDraft } from '../../kit/index.js';

/** One document the transaction writes: the checked draft (plaintext) and the stored revision it replaces. */
export interface TxWrite {
  op: WriteOp;
  draft: Doc;
  previous?: Doc;
  model: ClassModel;
}

/**
 * What the function given to `stack.transaction` works with. Writes are checked by the pipeline
 * when they are made (a dry run: validation, before-triggers, encryption's checks, key duplicates)
 * and their primary keys claimed at once, but nothing is stored before the function returns.
 * Reads see the transaction's own writes and are remembered, so the commit can tell whether
 * another writer changed them meanwhile.
 */
export class Transaction {
  /** id → revision when first read (null: absent then) */
  readonly reads = new Map<string, string | null>();
  readonly writes = new Map<string, TxWrite>();
  /** keys claimed for this transaction, held until it ends */
  readonly held: KeyClaim[] = [];
  private ended = false;

  constructor(
    readonly id: string,
    private readonly stack: ClientStack,
    private readonly journal: Journal,
    private readonly session?: WriteSession,
  ) {}

  /** the session every write of this transaction carries, as write extras */
  get sessionExtras(): { session?: WriteSession } {
    return this.session !== undefined ? { session: this.session } : {};
  }

  getDocument<T extends object = Record<string, unknown>>(id: string, options?: GetOptions): Promise<DocOf<T> | null>;
  async getDocument(id: string, options: GetOptions = {}): Promise<Doc | null> {
    this.assertOpen();
    const own = this.writes.get(id);
    if (own) return own.draft.active === false && !options.includeInactive ? null : { ...own.draft };
    const doc = await this.stack.getDocument(id, { includeInactive: true });
    this.noteRead(id, doc?._rev ?? null);
    return doc && (doc.active !== false || options.includeInactive) ? doc : null;
  }

  /** Like stack.findDocuments, with this transaction's writes in place of the stored documents. */
  findDocuments<T extends object = Record<string, unknown>>(className: string, selector?: Selector, options?: FindOptions): Promise<DocOf<T>[]>;
  async findDocuments(className: string, selector?: Selector, options: FindOptions = {}): Promise<Doc[]> {
    this.assertOpen();
    checkFindOptions(options);
    const stored = await this.stack.findDocuments(className, selector, { includeInactive: true });
    const byId = new Map(stored.map((doc) => [doc._id, doc]));
    for (const doc of stored) this.noteRead(doc._id, doc._rev ?? null);
    const match = compileSelector(selector);
    for (const [id, write] of this.writes) {
      if (write.model.name !== className) continue;
      byId.delete(id);
      if (match([write.draft]).length > 0) byId.set(id, { ...write.draft });
    }
    const docs = [...byId.values()].filter((d) => d.active !== false || options.includeInactive).sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    const from = options.skip ?? 0;
    return docs.slice(from, options.limit === undefined ? undefined : from + options.limit).map((d) => projectFields(d, options.fields));
  }

  createDoc<T extends object = Record<string, unknown>>(doc: NewDocOf<T>, options?: { id?: string }): Promise<DocOf<T>>;
  async createDoc(doc: NewDoc, options: { id?: string } = {}): Promise<Doc> {
    const [created] = await this.createDocs([options.id === undefined ? doc : { ...doc, _id: options.id }]);
    return created;
  }

  createDocs<T extends object = Record<string, unknown>>(docs: NewDocOf<T>[]): Promise<DocOf<T>[]>;
  async createDocs(docs: NewDoc[]): Promise<Doc[]> {
    this.assertOpen();
    if (!Array.isArray(docs)) throw KERNEL_ERRORS.docInvalid('createDocs takes an array of documents.');
    const now = nowIso(this.stack.clock);
    const writes: TxWrite[] = [];
    for (const input of docs) {
      const doc = requireObject(input, 'A document');
      const model = await this.stack.requireClass(classNameOf(doc));
      const draft = createDraft(doc, model, undefined, now, this.stack.systemFields);
      if (this.writes.has(draft._id) || (doc._id !== undefined && (await this.stack.storage.get(draft._id)))) {
        throw KERNEL_ERRORS.docExists(`A document with the id "${draft._id}" already exists.`, { path: '_id', details: { id: draft._id } });
      }
      writes.push({ op: 'create', draft, model });
    }
    return this.stage(writes);
  }

  updateDoc<T extends object = Record<string, unknown>>(id: string, changes: Partial<NoInfer<T>>): Promise<DocOf<T>>;
  async updateDoc(id: string, changes: Record<string, unknown>): Promise<Doc> {
    this.assertOpen();
    const { base, own } = await this.current(id);
    const model = await this.stack.requireClass(base['~class']);
    const draft = updateDraft(base, requireObject(changes, 'The changes'), nowIso(this.stack.clock), this.stack.systemFields);
    const [updated] = await this.stage([{ op: own?.op ?? 'update', draft, ...(own ? (own.previous ? { previous: own.previous } : {}) : { previous: base }), model }]);
    return updated;
  }

  /** Soft delete, as stack.deleteDocument; a document this transaction created is simply not created. */
  deleteDocument<T extends object = Record<string, unknown>>(id: string): Promise<DocOf<T>>;
  async deleteDocument(id: string): Promise<Doc> {
    this.assertOpen();
    const { base, own } = await this.current(id);
    const model = await this.stack.requireClass(base['~class']);
    const draft = deleteDraft(base, nowIso(this.stack.clock));
    if (own?.op === 'create') {
      this.writes.delete(id);
      await this.stack.primaryKeys.release(this.held.filter((c) => c.docId === id));
      return draft;
    }
    const [deleted] = await this.stage([{ op: 'delete', draft, previous: own?.previous ?? base, model }]);
    return deleted;
  }

  /** A class object bound to this transaction: its card methods read and write here. */
  async getClass(name: string): Promise<TxClass> {
    this.assertOpen();
    return new TxClass(this, await this.stack.requireClass(name));
  }

  /** The transaction is over: nothing more may be read or written through it. */
  end(): void {
    this.ended = true;
  }

  private assertOpen(): void {
    if (this.ended) throw TX_ERRORS.closed('This transaction has ended: use the tx object only inside the function given to stack.transaction.');
  }

  private noteRead(id: string, rev: string | null): void {
    if (!this.reads.has(id)) this.reads.set(id, rev);
  }

  /** The document as this transaction sees it: its own write, or the stored one (then remembered as read). */
  private async current(id: string): Promise<{ base: Doc; own?: TxWrite }> {
    const own = this.writes.get(id);
    if (own && own.draft.active !== false) return { base: own.draft, own };
    const stored = own ? null : await this.stack.storage.get(id);
    const visible = stored && !this.stack.hooks.hidden.call(stored, { stack: this.stack });
    // as the commit sees it: a hidden document is absent
    if (!own) this.noteRead(id, visible ? (stored._rev ?? null) : null);
    if (!visible || stored.active === false || typeof stored['~class'] !== 'string') {
      throw KERNEL_ERRORS.docNotFound(`There is no active document with the id ${JSON.stringify(id)}.`, { details: { id } });
    }
    return { base: stored };
  }

  /**
   * Checks writes through the pipeline (a dry run), claims their new keys (recorded in the journal
   * first, so a crash cannot leave a claim behind unknown), then keeps them as this transaction's.
   */
  private async stage(writes: TxWrite[]): Promise<Doc[]> {
    const requests = writes.map((w) => ({ op: w.op, draft: w.draft, ...(w.previous ? { previous: w.previous } : {}), classModel: w.model }));
    // the checks see this transaction's earlier writes as stored (a child's foreign key names the parent it created)
    const checked = await this.stack.checkRequests(requests, 'local', { transaction: this.id, ...this.sessionExtras, pending: (id) => this.writes.get(id)?.draft });
    const claims: KeyClaim[] = [];
    writes.forEach((w, i) => {
      const next = checked[i].active !== false ? claimFor(w.model, checked[i]) : null;
      const before = w.previous ? claimFor(w.model, w.previous) : null;
      const held = this.held.some((c) => c.keyId === next?.keyId && c.docId === next?.docId);
      if (next && next.keyId !== before?.keyId && !held) claims.push(next);
    });
    if (claims.length > 0) {
      await this.journal.hold(this.id, claims);
      this.held.push(...claims);
      await this.stack.primaryKeys.claim(claims, this.id); // the holder: its commit's natural ids are its own
    }
    writes.forEach((w, i) => this.writes.set(w.draft._id, { ...w, draft: checked[i] }));
    return checked.map((d) => ({ ...d }));
  }
}
