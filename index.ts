/**
 * docstack: the engine — open a stack, classes, documents, queries, replication's ingest, errors,
 * and the types a plugin programs against. Plugins live at `docstack/plugins/<name>`, presets at
 * `docstack/presets`, plugin helpers at `docstack/plugin-kit` (test/package/exports.test.ts lists
 * each entry's names).
 */
export { ClientStack, type ConflictCase, type ConflictEvent, type ConflictFailedEvent, type ConflictHandler, type ConflictResolvedEvent, type DocConflict, type StackOptions, type WriteOptions } from './engine/client-stack.js';
export { createStack, getApi, type StackWith } from './engine/create-stack.js';
export type { HeldEntry, IngestOptions, IngestResult } from './engine/ingest/ingest.js';
export type { HeldReason } from './engine/ingest/ingest-held.js';
export type { DocChangeEvent, WriteExtras, WriteRequest } from './kernel/pipeline.js';
export type { Attachment } from './engine/attachments/api.js';
export type { AttachmentData, AttachmentInput } from './engine/attachments/bytes.js';
export { DEFAULT_ATTACHMENT_MAX_BYTES } from './engine/attachments/attachment-type.js';
export { SEALED_ATTACHMENT_ALLOWANCE } from './engine/attachments/check.js';
export { Class, type FetchOptions } from './engine/model/class.js';
export { LiveHandle, type LiveObserver, type LiveQueryOf as LiveQuery } from './engine/live/live-handle.js';
export type { LiveOptions, SortKey } from './engine/live/live-order.js';
export { Attribute } from './engine/model/attribute.js';
export { createError, DocstackError, ERROR_CODES, isDocstackError, KERNEL_ERRORS, registeredErrors, type ErrorCode, type ErrorFactory, type ErrorSpec } from './contracts/errors.js';
export { definePlugin, withPlugin, withoutPlugins, type ApiOf, type Plugin, type PluginEntry, type PluginMembers, type Kernel } from './kernel/plugin.js';
export type { KernelHooks } from './kernel/hooks.js';
export type { SystemPatch } from './kernel/patch-types.js';
export type { EngineDoc, RangeOptions, RangeRow, Storage, StorageChanges, StorageInfo } from './storage/facade.js';
export type {
  LocalDoc, OpenRevision, RevisionDoc, ReplicationAllDocsOptions, ReplicationBulkGetOptions, ReplicationChangesOptions, ReplicationGetOptions,
  ReplicationTarget, ReplicationTargetOptions, ReplicationWriteResult, StorageReplication,
} from './storage/replication.js';
export { destroyStore, type AdapterName, type StorageOptions } from './storage/database.js';
export type { ChangeEvent } from './storage/change-feed.js';
export type {
  AdmitContext, AttachmentReadContext, AttributeContext, ClassSchema, DefaultValueContext, FindCandidates, FindContext, IngestDoc, IngestItem, IngestRefusal, PendingDocs, ReadContext,
  ReplicationStep, WriteBatch, WriteContext, WriteOp, WriteOrigin,
} from './contracts/hooks.js';
export type { WriteSession } from './contracts/hooks.js';
export type { Denial, DenialRecord, DenialResolution } from './contracts/denials.js';
export type { StackPort } from './contracts/stack-port.js';
export type { StoredResult, UnitDoc, UnitItem, UnitOfWork, WritePart, WriteShare } from './contracts/unit-of-work.js';
export type { AttributeTypeDefinition, ConfigKeyDefinition, ConfigKeyRule } from './contracts/attribute-types.js';
export { systemClock, type Clock } from './contracts/clock.js';
export type { FindOptions, GetOptions, PatternMatcher, RegexEngine, Selector } from './contracts/queries.js';
export * from './contracts/model.js';
