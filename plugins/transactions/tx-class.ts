import { KERNEL_ERRORS, type ClassModel, type Doc, type DocOf, type FindOptions, type NewDoc, type NewDocOf, primaryKeyAttributes, type Selector } from '../../index.js';
import { isPlainObject, primaryKeyValues } from '../../kit/index.js';

/**
 * The transaction's document methods a TxClass calls (Transaction has them): named here so this
 * file need not import transaction.ts, which builds TxClass objects.
 */
export interface TxDocuments {
  getDocument<T extends object = Record<string, unknown>>(id: string): Promise<DocOf<T> | null>;
  findDocuments<T extends object = Record<string, unknown>>(className: string, selector?: Selector, options?: FindOptions): Promise<DocOf<T>[]>;
  createDoc<T extends object = Record<string, unknown>>(doc: NewDocOf<T>): Promise<DocOf<T>>;
  updateDoc<T extends object = Record<string, unknown>>(id: string, changes: Partial<NoInfer<T>>): Promise<DocOf<T>>;
  deleteDocument<T extends object = Record<string, unknown>>(id: string): Promise<DocOf<T>>;
}

/** Fields of a card that addOrUpdateCard leaves to the engine (as Class.addOrUpdateCard does). */
const ENGINE_FIELDS = ['_id', '_rev', '~class', '~createTimestamp', '~updateTimestamp', 'active', '~tx'];

/**
 * A class seen through a transaction (`tx.getClass(name)`): the card methods of a class object,
 * reading the transaction's own writes and writing into it, so nothing is stored before commit.
 */
export class TxClass {
  constructor(
    private readonly tx: TxDocuments,
    readonly model: ClassModel,
  ) {}

  get name(): string {
    return this.model.name;
  }

  createDoc<T extends object = Record<string, unknown>>(attributes: NoInfer<T>): Promise<DocOf<T>>;
  createDoc(attributes: Record<string, unknown>): Promise<Doc> {
    return this.tx.createDoc({ ...attributes, '~class': this.name });
  }

  getCards<T extends object = Record<string, unknown>>(selector?: Selector, options?: FindOptions): Promise<DocOf<T>[]>;
  getCards(selector?: Selector, options: FindOptions = {}): Promise<Doc[]> {
    return this.tx.findDocuments(this.name, selector, options);
  }

  /** The active card with that primary key, this transaction's writes included. */
  getByPrimaryKeys<T extends object = Record<string, unknown>>(params: Partial<NoInfer<T>>): Promise<DocOf<T> | null>;
  async getByPrimaryKeys(params: Record<string, unknown>): Promise<Doc | null> {
    const keys = primaryKeyAttributes(this.model);
    if (keys.length === 0) throw KERNEL_ERRORS.queryInvalid(`The class "${this.name}" has no primary key.`);
    const missing = keys.filter((a) => params?.[a.name] === undefined || params[a.name] === null).map((a) => a.name);
    if (missing.length > 0) throw KERNEL_ERRORS.queryInvalid(`getByPrimaryKeys needs ${missing.join(', ')}.`, { path: missing.join(',') });
    const selector = Object.fromEntries(keys.map((a) => [a.name, params[a.name]]));
    const [found] = await this.tx.findDocuments(this.name, selector, { limit: 1 });
    return found ?? null;
  }

  /** Updates the card named by `_id` or by its primary key; creates it otherwise — inside the transaction. */
  addOrUpdateCard<T extends object = Record<string, unknown>>(params: Partial<NoInfer<T>> & { _id?: string }): Promise<DocOf<T>>;
  async addOrUpdateCard(params: Record<string, unknown>): Promise<Doc> {
    if (!isPlainObject(params)) throw KERNEL_ERRORS.docInvalid('addOrUpdateCard takes an object of attributes.');
    const attributes = Object.fromEntries(Object.entries(params).filter(([k]) => !ENGINE_FIELDS.includes(k)));
    let existing = typeof params._id === 'string' ? await this.tx.getDocument(params._id) : null;
    if (!existing && primaryKeyAttributes(this.model).length > 0 && primaryKeyValues(this.model, params)) existing = await this.getByPrimaryKeys(params);
    return existing ? this.tx.updateDoc(existing._id, attributes) : this.createDoc(attributes);
  }

  updateDoc<T extends object = Record<string, unknown>>(id: string, changes: Partial<NoInfer<T>>): Promise<DocOf<T>>;
  updateDoc(id: string, changes: Record<string, unknown>): Promise<Doc> {
    return this.tx.updateDoc(id, changes);
  }

  deleteDocument<T extends object = Record<string, unknown>>(id: string): Promise<DocOf<T>>;
  deleteDocument(id: string): Promise<Doc> {
    return this.tx.deleteDocument(id);
  }
}
