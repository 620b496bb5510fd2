import type { WriteContext, WriteOp, WriteOrigin } from './hooks.js';
import type { ClassModel, Doc } from './model.js';

/*
 * The unit of work: one pipeline write is one storage call per chunk of documents, and a write
 * part (`kernel.addWritePart`) adds its own documents to that call — the engine's primary-key
 * entries and class counters, a plugin's audit record — so they are stored, or undone, together
 * with the documents they belong to.
 */

/** One document of a write, as the write parts see it. */
export interface UnitItem {
  /**
   * What is stored: the validated draft while the write is checked, the document as beforeWrite
   * left it (sealed) from `prepare` on; its `_rev` is set once stored.
   */
  readonly doc: Doc;
  /** the stored version this write replaces (update, delete) */
  readonly previous?: Doc;
  readonly classModel: ClassModel;
  readonly op: WriteOp;
  /** the write's context: its session, transaction, depth… */
  readonly context: WriteContext;
}

export interface UnitOfWork {
  readonly items: readonly UnitItem[];
  readonly origin: WriteOrigin;
  /** true when the pipeline only checks (stack.checkRequests): only `checked` runs */
  readonly dryRun: boolean;
}

/** One stored document's outcome, as PouchDB's bulkDocs answers it. */
export interface StoredResult {
  id?: string;
  rev?: string;
  error?: unknown;
  status?: number;
  message?: string;
}

/** What a document a part adds must have: an id (and the revision it replaces, if any). */
export interface UnitDoc {
  _id: string;
  _rev?: string;
  [field: string]: unknown;
}

/**
 * A part's share of one write; every member is optional. Order: `checked` (after validation,
 * dry runs too) → `prepare` (inside the store's write lock, nothing stored yet) → per chunk
 * `docs` then `stored` → `done` once every document is stored, or `undo` when the write failed
 * (then `refused` when storage refused creates; a share that revives them has the write tried again).
 */
export interface WriteShare {
  /** Throw a DocstackError to refuse the write (a duplicate key inside the batch). */
  checked?(): void | Promise<void>;
  /** Reads what the share needs under the lock; throw to refuse the write with nothing stored. */
  prepare?(): Promise<void>;
  /** The part's documents for items [start, end), stored in the same bulkDocs call as them. */
  docs?(start: number, end: number): UnitDoc[] | Promise<UnitDoc[]>;
  /** Those documents' outcomes, in order; an error returned fails the whole write (then undone). */
  stored?(results: readonly StoredResult[]): Error | undefined;
  /**
   * The write failed: documents that take back what `stored` saw stored (one bulkDocs with the
   * write's own). Without it the kernel deletes the share's documents that were stored — a share
   * that only adds new documents (an audit record) needs none; one whose documents replace
   * stored ones (a `_rev` given) must have one (else DS_PLUGIN_INVALID, nothing stored).
   */
  undo?(): Promise<UnitDoc[]>;
  /**
   * Storage refused these creates of the write (their ids are taken: 409), and the write was
   * undone. Throw a DocstackError to refuse the write with it (a taken natural id is a taken
   * key), or return true when the share made those items storable (a soft-deleted document
   * revived: its `_rev` and `previous` set): the write is then tried again, every share begun
   * anew. False leaves the kernel's answer (DS_DOC_EXISTS).
   */
  refused?(indexes: readonly number[]): Promise<boolean>;
  /** Every document of the write is stored. */
  done?(): Promise<void>;
}

/** A participant in every pipeline write of a stack (kernel.addWritePart). */
export interface WritePart {
  /** for messages; unique per stack */
  readonly name: string;
  /** Before any hook runs, once per class of a write: throw to refuse writes of that class here. */
  admit?(model: ClassModel): void;
  /** This part's share of a write, or undefined when it has nothing to add to it. */
  begin(work: UnitOfWork): WriteShare | undefined;
}
