import type { AttributeModel, ClassModel, Doc } from './model.js';
import type { StackPort } from './stack-port.js';

/* The contexts the kernel's hooks hand their taps: what a plugin programs against. */

export type WriteOp = 'create' | 'update' | 'delete';

/**
 * Who makes a write: what a caller passes as `session` (createDoc, transaction, sql, ingest) and
 * hook taps read as `ctx.session`. Empty here: an app or a plugin adds the members it uses by
 * augmenting it — `declare module 'docstack' { interface WriteSession { user?: string } }` — and
 * every party of one program shares the merged interface. A value passed as a session must then
 * have one of its members (TypeScript refuses an object sharing none: the server's sessions
 * declare `caller`, the authority plugin's `authority`).
 */
export interface WriteSession {}

/**
 * Where a write comes from: the caller (`local`), a peer (`replication`), a patch, the engine or a
 * plugin's own bookkeeping (`system`), or a class's conflict policy resolving two devices' edits
 * (`conflict`: docs/conflicts.md).
 */
export type WriteOrigin = 'local' | 'replication' | 'patch' | 'system' | 'conflict';

/**
 * Shared by the documents of one createDocs/updateDoc/deleteDocument call, so plugins can
 * batch their I/O (one foreign-key fetch for a whole batch) and see sibling drafts
 * (primary-key duplicates inside one batch).
 */
export interface WriteBatch {
  readonly drafts: readonly Doc[];
  /** Scratch space keyed by plugin name; lives as long as the call. */
  readonly scratch: Map<string, unknown>;
  /**
   * Documents arriving together with these (stack.ingest: the rest of a peer's batch, or the
   * held documents retried with them): a foreign key or reference may name one of them.
   */
  readonly siblings?: readonly Doc[];
}

/**
 * Documents a write sees as if they were stored, though they are not yet: a transaction's staged
 * writes while it checks another one. The document as it will be stored (active false: deleted),
 * or undefined when the id is not pending (then the store answers).
 */
export type PendingDocs = (id: string) => Doc | undefined;

export interface WriteContext {
  op: WriteOp;
  classModel: ClassModel;
  /** The stored document before this write (update and delete). */
  previous?: Doc;
  origin: WriteOrigin;
  /** Who makes the write (WriteSession, augmented by the app): the caller's `session` option. */
  session?: WriteSession;
  /** Set by the transactions plugin. */
  transaction?: unknown;
  /** Set by the transactions plugin while it stages a write: its earlier writes (PendingDocs). */
  pending?: PendingDocs;
  stack: StackPort;
  batch: WriteBatch;
  /** Index of this draft in batch.drafts. */
  index: number;
  /** 0 for a caller's write; +1 for each write made in reaction to another (see WriteExtras). */
  depth: number;
  /**
   * Attributes whose value a plugin vouches for as stored (the encryption plugin: a ciphertext
   * it cannot open, kept unchanged or received from a peer): validation leaves them alone.
   */
  opaque: Set<string>;
  /**
   * True when the pipeline only checks (stack.checkRequests, e.g. Attribute.create trying out
   * its default stamping first): nothing will be stored, so taps must not cause side effects.
   */
  dryRun: boolean;
}

/** An attribute model being defined: Class.create, Attribute.create, a schema change from a peer. */
export interface AttributeContext {
  stack: StackPort;
  /** the class the attribute is (to be) part of */
  classModel: ClassModel;
  /**
   * Class names arriving together with this class (stack.ingest: class documents that name
   * each other, a cycle of foreign keys): they count as existing classes.
   */
  arriving?: ReadonlySet<string>;
}

export interface DefaultValueContext extends AttributeContext {
  attribute: AttributeModel;
}

/** A document as a peer sent it to `stack.ingest`: its own `_rev` (and `_revisions`) kept. */
export type IngestDoc = Record<string, unknown> & { _id: string; _rev?: string; _deleted?: boolean };

/** One document of an ingest, as the `admit` taps see it. */
export interface IngestItem {
  readonly doc: IngestDoc;
  /** the winning stored revision of that id, when there is one */
  readonly previous?: Doc;
  /**
   * Set by a tap that takes charge of a document the kernel has no class for (the domains
   * plugin: relation documents): the kernel then stores it as it came, unvalidated.
   */
  handled: boolean;
  /**
   * Set by a tap for a copy of what this replica makes itself (the node: a peer's meta-class
   * documents): answered as stored (`ok`, with `new_edits: false` only), not stored.
   */
  ignored?: boolean;
  /** Set by a tap: run once the document is stored (the domains plugin reconciles relations: of a relation it handled, of a document a tombstone changed). */
  onStored?: () => Promise<void>;
}

/**
 * What a replication run (`stack.sync`) tells the other plugins: `start` with the classes it
 * pulls (null: every class), then `pulled` each time its pull caught up, with the remote's
 * sequence reached and a reader of the remote's `_local` documents (the transactions plugin
 * settles a peer's transactions the remote resolved).
 */
export type ReplicationStep =
  | { phase: 'start'; classes: readonly string[] | null }
  | { phase: 'pulled'; to: unknown; readRemoteLocal(id: string): Promise<unknown> };

/** A document `stack.ingest` refused (not held): what the peer sent and why it was refused. */
export interface IngestRefusal {
  readonly doc: unknown;
  readonly id: string;
  readonly code: string;
  readonly reason: string;
}

export interface AdmitContext {
  stack: StackPort;
  origin: WriteOrigin;
  /** what the caller of ingest passed (the node: who pushed) */
  session?: WriteSession;
  newEdits: boolean;
  /**
   * True when a held document is tried again (engine/ingest/ingest-held.ts): it was admitted when it
   * arrived, and its pusher's session is not kept — taps that judge who pushed skip it.
   */
  held?: boolean;
}

export interface ReadContext {
  stack: StackPort;
  classModel?: ClassModel;
  /**
   * True for the document a write returns (createDoc, updateDoc, deleteDocument): the caller's
   * values plus the stored ones the write kept as they were, which read as any read would.
   */
  written?: boolean;
}

/**
 * An attachment's bytes being read (stack.getAttachment), as the attachmentRead taps see them:
 * the encryption plugin opens a sealed one there.
 */
export interface AttachmentReadContext {
  stack: StackPort;
  classModel: ClassModel;
  docId: string;
  /** the attachment's name: its attribute's */
  name: string;
  /** the content type it was stored with */
  contentType: string;
}

/** A findDocuments read, as the findCandidates taps see it. */
export interface FindContext {
  stack: StackPort;
  classModel: ClassModel;
  includeInactive: boolean;
}

/**
 * A findCandidates tap's answer: every stored document of the class that can match the selector
 * (raw, as stored; a superset is fine), in any order. The kernel still matches the selector.
 */
export interface FindCandidates {
  docs: Doc[];
}

/**
 * classObj.schemaZOD: the zod schema of a class's documents, as the validator that answers the
 * classSchema hook builds it (the validation plugin's); see docs/data-model.md#schemazod.
 */
export type ClassSchema = import('zod/mini').ZodMiniType;
