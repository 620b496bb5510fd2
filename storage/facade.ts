import { KERNEL_ERRORS } from '../contracts/errors.js';
import { isEngineClassName, type Doc } from '../contracts/model.js';
import { bindRawDatabase } from './raw-database.js';
import { rangePages, readRaw } from './raw-reads.js';
import { classPages, outsideIds } from './class-ids.js';
import { createReplication, type StorageReplication } from './replication.js';
import type { Database } from './database.js';

/**
 * A document the engine owns and writes itself: a `_local/…` index entry, lock or checkpoint,
 * a relation (`~domain`, no `~class`), a class document (`~class: 'class'`), a keyring. A document
 * of a user class is not one: it goes through the pipeline (createDoc, updateDoc, ingest).
 */
export interface EngineDoc {
  _id: string;
  _rev?: string;
}

/** An id range of the store, in id order (PouchDB's allDocs without keys). */
export interface RangeOptions {
  /** the ids starting with this; `start` / `end` when given override its bounds (a cursor) */
  prefix?: string;
  /** first id of the range, inclusive (the highest one when descending) */
  start?: string;
  /** last id of the range, inclusive (the lowest one when descending) */
  end?: string;
  descending?: boolean;
  limit?: number;
  skip?: number;
  /** also read each document (rows then carry `doc`) */
  includeDocs?: boolean;
}

/** One stored (not deleted) document of a range. */
export interface RangeRow {
  id: string;
  rev: string;
}

export interface StorageInfo {
  /** stored documents, deleted ones and `_local` ones left out */
  docCount: number;
  updateSeq: number | string;
}

/** A page of the store's changes feed: ids and sequences only. */
export interface StorageChanges {
  /** `rev`: the winning revision after the change */
  results: Array<{ id: string; seq: number | string; deleted: boolean; rev: string }>;
  lastSeq: number | string;
}

/**
 * What plugins and the server get of the store (`stack.storage`, `kernel.storage`, the
 * `storage` container key): reads by id and by id range, the changes feed in pages, writes of
 * the engine's own documents, and the CouchDB protocol for replication. Documents of user
 * classes are written through the pipeline (createDoc, updateDoc, ingest), never here: `put`
 * refuses them (DS_STORAGE_BYPASS). The PouchDB store itself is the kernel's.
 */
export interface Storage {
  /** The stored document (raw: no afterRead), or null when it is missing or deleted. */
  get<T extends object = Doc>(id: string): Promise<T | null>;
  /** Several documents by id, in the order asked (null for a missing or deleted one). */
  getMany<T extends object = Doc>(ids: readonly string[]): Promise<Array<T | null>>;
  /**
   * The stored bytes of a document's attachment (raw: a sealed one stays sealed), or null when
   * the document or the attachment is missing. `rev`: of that revision, else the winner's.
   */
  attachment(id: string, name: string, rev?: string): Promise<Uint8Array | null>;
  /** An id range: rows with their documents when `includeDocs`. */
  range(options: RangeOptions & { includeDocs: true }): Promise<Array<RangeRow & { doc: Doc }>>;
  range(options?: RangeOptions): Promise<RangeRow[]>;
  /** The documents whose ids start with `prefix`, a page at a time (writes between pages are fine). */
  pages(prefix: string, size?: number): AsyncGenerator<Doc[]>;
  /**
   * A class's stored documents, a page at a time in id order: its id range `<Class>-…` and the
   * documents created with an id outside it (listed per class: docs/data-model.md, "Ids"). Range
   * documents come as stored (check `~class`, as for any range); `after`: the last id of a
   * previous page, to go on from.
   */
  classPages(className: string, options?: { size?: number; after?: string }): AsyncGenerator<Doc[]>;
  /** The ids a class's documents were given outside its range, sorted (an id may name a document gone since). */
  outsideIds(className: string): Promise<string[]>;
  /** One page of the changes feed after `since` (a sequence this store answered, or 0). */
  changes(options: { since: number | string; limit?: number }): Promise<StorageChanges>;
  /**
   * Writes an engine-owned document (see EngineDoc); returns its new revision. A write without
   * the stored `_rev` is refused with PouchDB's conflict (status 409): the way locks and index
   * entries are claimed atomically. A document of a user class is DS_STORAGE_BYPASS.
   */
  put<T extends EngineDoc>(doc: T): Promise<string>;
  /**
   * Writes several engine-owned documents in one storage call (what `put` checks, for each);
   * answers per document, in order: its new revision, or the error (a conflict is status 409).
   */
  putMany<T extends EngineDoc>(docs: readonly T[]): Promise<Array<{ rev: string } | { error: string; status?: number }>>;
  /** Deletes an engine-owned document at its revision (a conflict is PouchDB's 409). */
  remove(id: string, rev: string): Promise<void>;
  info(): Promise<StorageInfo>;
  /** The CouchDB replication protocol over this store: the node's endpoint, the sync plugin. */
  readonly replication: StorageReplication;
}

/** The `~class` values `put` accepts: none, or the engine's (`class`, `domain`, `~…`). */
function refuseClassDocument(doc: EngineDoc): void {
  const className = (doc as { '~class'?: unknown })['~class'];
  if (className === undefined || (typeof className === 'string' && isEngineClassName(className))) return;
  throw KERNEL_ERRORS.storageBypass(
    `storage.put writes the engine's own documents; "${doc._id}" is a document of the class ${JSON.stringify(className)}: write it with createDoc / updateDoc (or ingest).`,
    { details: { id: doc._id, className } },
  );
}

/** The storage facade over one PouchDB store. */
export class StackStorage implements Storage {
  readonly #db: Database;
  readonly replication: StorageReplication;

  constructor(db: Database) {
    this.#db = db;
    this.replication = createReplication(db);
    bindRawDatabase(this, db);
  }

  get<T extends object = Doc>(id: string): Promise<T | null> {
    return readRaw<T>(this.#db, id);
  }

  async getMany<T extends object = Doc>(ids: readonly string[]): Promise<Array<T | null>> {
    if (ids.length === 0) return [];
    const { rows } = await this.#db.allDocs({ keys: [...ids], include_docs: true });
    return rows.map((row) => ('doc' in row && row.doc ? (row.doc as unknown as T) : null));
  }

  async attachment(id: string, name: string, rev?: string): Promise<Uint8Array | null> {
    let data: unknown;
    try {
      data = await this.#db.getAttachment(id, name, rev !== undefined ? { rev } : {});
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
    // a Buffer in Node, a Blob in a browser
    if (data instanceof Uint8Array) return data;
    return new Uint8Array(await (data as Blob).arrayBuffer());
  }

  range(options: RangeOptions & { includeDocs: true }): Promise<Array<RangeRow & { doc: Doc }>>;
  range(options?: RangeOptions): Promise<RangeRow[]>;
  async range(options: RangeOptions = {}): Promise<Array<RangeRow & { doc?: Doc }>> {
    const { prefix, descending = false, includeDocs = false } = options;
    let { start, end } = options;
    if (prefix !== undefined) {
      start ??= descending ? `${prefix}\uffff` : prefix;
      end ??= descending ? prefix : `${prefix}\uffff`;
    }
    const { rows } = await this.#db.allDocs({
      ...(start !== undefined ? { startkey: start } : {}),
      ...(end !== undefined ? { endkey: end } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.skip !== undefined ? { skip: options.skip } : {}),
      descending,
      include_docs: includeDocs,
    });
    return rows.map((row) => (includeDocs ? { id: row.id, rev: row.value.rev, doc: row.doc as unknown as Doc } : { id: row.id, rev: row.value.rev }));
  }

  pages(prefix: string, size?: number): AsyncGenerator<Doc[]> {
    return rangePages(this.#db, prefix, size);
  }

  classPages(className: string, options: { size?: number; after?: string } = {}): AsyncGenerator<Doc[]> {
    return classPages(this.#db, className, options.size, options.after);
  }

  outsideIds(className: string): Promise<string[]> {
    return outsideIds(this.#db, className);
  }

  async changes(options: { since: number | string; limit?: number }): Promise<StorageChanges> {
    const page = await this.#db.changes({ since: options.since, ...(options.limit !== undefined ? { limit: options.limit } : {}), return_docs: true });
    return { results: page.results.map((c) => ({ id: c.id, seq: c.seq, deleted: c.deleted === true, rev: c.changes[0]?.rev ?? '' })), lastSeq: page.last_seq };
  }

  async put<T extends EngineDoc>(doc: T): Promise<string> {
    if (!doc || typeof doc !== 'object' || typeof doc._id !== 'string' || doc._id === '') {
      throw KERNEL_ERRORS.docInvalid('storage.put needs a document with a string _id.');
    }
    refuseClassDocument(doc);
    return (await this.#db.put(doc as EngineDoc & Record<string, unknown>)).rev;
  }

  async putMany<T extends EngineDoc>(docs: readonly T[]): Promise<Array<{ rev: string } | { error: string; status?: number }>> {
    for (const doc of docs) {
      if (!doc || typeof doc !== 'object' || typeof doc._id !== 'string' || doc._id === '') {
        throw KERNEL_ERRORS.docInvalid('storage.putMany needs documents with a string _id.');
      }
      refuseClassDocument(doc);
    }
    if (docs.length === 0) return [];
    const results = await this.#db.bulkDocs(docs.map((d) => ({ ...d })) as never[]);
    return results.map((r) => ('error' in r && r.error ? { error: String(r.error), ...(typeof r.status === 'number' ? { status: r.status } : {}) } : { rev: (r as { rev: string }).rev }));
  }

  async remove(id: string, rev: string): Promise<void> {
    await this.#db.remove(id, rev);
  }

  async info(): Promise<StorageInfo> {
    const { doc_count: docCount, update_seq: updateSeq } = await this.#db.info();
    return { docCount, updateSeq };
  }
}
