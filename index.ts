/** docstack: the engine. Presets live at `docstack/presets`. */
export { createStack, getApi, ClientStack, type StackOptions, type StackWith, type WriteOptions } from './engine/client-stack.js';
export type { HeldEntry, IngestOptions, IngestResult } from './engine/ingest/ingest.js';
export type { HeldReason } from './engine/ingest/ingest-held.js';
export { bulkDocsLine, type BulkDocsLine } from './engine/ingest/ingest-lines.js';
export type { DocChangeEvent } from './kernel/pipeline.js';
export { Class, type FetchOptions } from './engine/model/class.js';
export { Attribute } from './engine/model/attribute.js';
export { createError, DocstackError, ERROR_CODES, isDocstackError, registerErrors, registeredErrors, type ErrorCode, type ErrorFactory, type ErrorSpec } from './contracts/errors.js';
export { HandlerRegistry, HANDLER_NAME, type AnyHandler, type HandlerLookup } from './kit/handler-registry.js';
export { definePlugin, withPlugin, withoutPlugins, type ApiOf, type Plugin, type PluginEntry, type PluginMembers, type Kernel } from './kernel/plugin.js';
export { KEYS } from './kernel/container.js';
export type { EngineDoc, RangeOptions, RangeRow, Storage, StorageChanges, StorageInfo } from './storage/facade.js';
export type {
  LocalDoc, OpenRevision, RevisionDoc, ReplicationAllDocsOptions, ReplicationBulkGetOptions, ReplicationChangesOptions, ReplicationGetOptions,
  ReplicationTarget, ReplicationTargetOptions, ReplicationWriteResult, StorageReplication,
} from './storage/replication.js';
export { destroyStore, type AdapterName, type StorageOptions } from './storage/database.js';
export type { WriteSession } from './contracts/hooks.js';
export type { AdmitContext, FindCandidates, FindContext, IngestDoc, IngestItem, AttributeContext, DefaultValueContext, KernelHooks, PendingDocs, WriteContext, WriteOp, WriteOrigin, ReadContext, WriteBatch } from './kernel/hooks.js';
export { systemClock, type Clock } from './contracts/clock.js';
export type { FindOptions, GetOptions } from './engine/queries/reads.js';
export type { Selector } from './engine/queries/selector.js';
export * from './contracts/model.js';
export { validationPlugin } from './plugins/validation/index.js';
export { ephemeralPlugin } from './plugins/ephemeral/index.js';
export { domainsPlugin, Domain, type DomainModel, type RelationDoc, type RelationKind } from './plugins/domains/index.js';
export { triggersPlugin, addTrigger, removeTrigger, registerTriggerHandler, type TriggersApi, setTriggerEnabled, TRIGGER_HANDLERS, TRIGGER_FAILURE_CLASS, TRIGGER_FAILED_EVENT, type TriggerHandler, type TriggerContext, type TriggerModel, type TriggerFailedEvent, type TriggersOptions } from './plugins/triggers/index.js';
export { jobsPlugin, registerJobHandler, JOB_HANDLERS, type JobsApi, type JobContext, type JobHandler, type HandlerOptions as JobHandlerOptions, type JobsOptions } from './plugins/jobs/index.js';
export { retentionPlugin } from './plugins/retention/index.js';
export { encryptionPlugin, isSealed, isTravellingKeyringId, KEYRING_CLASS, type EncryptionApi, type KeyringApi, type ScopeBundle, type Recipient, type Opener, type RotationProgress } from './plugins/encryption/index.js';
export { transactionsPlugin, DEFAULT_RETRIES, type TransactionsApi, type Transaction, type TransactionOptions, type RecoveryReport } from './plugins/transactions/index.js';
export { patchesPlugin, registerPatchHandler, PATCH_HANDLERS, PATCH_CLASS, patchId, compareVersions, PatchesApi, type Patch, type PatchChange, type PatchDoc, type PatchHandler, type PatchHandlerContext, type PendingPatch, type AppliedPatch, type FailedTarget, type PatchProgressEvent, type PatchFailedEvent } from './plugins/patches/index.js';
export { syncPlugin, SyncLoginError, type SyncApi, type SyncOptions, type SyncHandle, type SyncStatus, type SyncResult, type SyncRefusal, type SyncState, type SyncDirection, type HeldDocument, type SyncPolicy, type DeniedPush } from './plugins/sync/index.js';
export { authorityPlugin, isPending, pendingOf, PENDING_FIELD, type AuthorityApi, type AuthorityOptions, type ClaimAnswer, type ConnectOptions, type NumberBlock } from './plugins/authority/index.js';
export { isPlainObject } from './kernel/drafts.js';
export { isClassDocId, isEachPeersOwnClassDoc } from './engine/class-cache.js';
export type { ChangeEvent } from './storage/change-feed.js';
export { tapWhen, type TapWhen } from './kernel/write-plan.js';
