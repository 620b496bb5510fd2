/** docstack: the engine, no plugin. Plugins: `docstack/plugins/<name>` (one each) or `docstack/presets` (all, with the presets). */
export { createStack, getApi, ClientStack, type StackOptions, type StackWith, type WriteOptions } from './kernel/stack.js';
export type { HeldEntry, IngestOptions, IngestResult } from './engine/ingest/ingest.js';
export type { HeldReason } from './engine/ingest/ingest-held.js';
export { bulkDocsLine, type BulkDocsLine } from './engine/ingest/ingest-lines.js';
export type { DocChangeEvent } from './kernel/pipeline.js';
export { Class, type FetchOptions } from './engine/model/class.js';
export { Attribute } from './engine/model/attribute.js';
export { createError, DocstackError, ERROR_CODES, isDocstackError, registerErrors, registeredErrors, type ErrorCode, type ErrorFactory, type ErrorSpec } from './kernel/errors.js';
export { HandlerRegistry, HANDLER_NAME, type AnyHandler, type HandlerLookup } from './kit/handler-registry.js';
export { definePlugin, withPlugin, withoutPlugins, type ApiOf, type Plugin, type PluginEntry, type PluginMembers, type Kernel } from './kernel/plugin.js';
export { KEYS } from './kernel/container.js';
export type { EngineDoc, RangeOptions, RangeRow, Storage, StorageChanges, StorageInfo } from './storage/facade.js';
export type {
  LocalDoc, OpenRevision, RevisionDoc, ReplicationAllDocsOptions, ReplicationBulkGetOptions, ReplicationChangesOptions, ReplicationGetOptions,
  ReplicationTarget, ReplicationTargetOptions, ReplicationWriteResult, StorageReplication,
} from './storage/replication.js';
export { destroyStore, type AdapterName, type StorageOptions } from './storage/database.js';
export type { AdmitContext, FindCandidates, FindContext, IngestDoc, IngestItem, AttributeContext, DefaultValueContext, KernelHooks, PendingDocs, WriteContext, WriteOp, WriteOrigin, ReadContext, WriteBatch } from './kernel/hooks.js';
export { systemClock, type Clock } from './kernel/clock.js';
export type { FindOptions, GetOptions } from './engine/queries/reads.js';
export type { Selector } from './engine/queries/selector.js';
export * from './contracts/model.js';
export { isPlainObject } from './kernel/drafts.js';
export { isClassDocId, isEachPeersOwnClassDoc } from './engine/class-cache.js';
export type { ChangeEvent } from './storage/change-feed.js';
export { tapWhen, type TapWhen } from './kernel/write-plan.js';
