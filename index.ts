/** docstack: the engine. Presets live at `docstack/presets`. */
export { createStack, getApi, ClientStack, type StackOptions, type StackWith, type WriteOptions } from './kernel/stack.js';
export { Class, type FetchOptions } from './kernel/model/class.js';
export { Attribute } from './kernel/model/attribute.js';
export { createError, DocstackError, ERROR_CODES, isDocstackError, registeredErrors, type ErrorCode, type ErrorFactory, type ErrorSpec } from './kernel/errors.js';
export { definePlugin, withPlugin, withoutPlugins, type ApiOf, type Plugin, type PluginEntry, type PluginMembers, type Kernel } from './kernel/plugin.js';
export { KEYS } from './kernel/container.js';
export type { AttributeContext, DefaultValueContext, KernelHooks, WriteContext, WriteOp, WriteOrigin, ReadContext, WriteBatch } from './kernel/hooks.js';
export type { FindOptions, GetOptions } from './kernel/reads.js';
export type { Selector } from './kernel/selector.js';
export * from './kernel/model/types.js';
export { validationPlugin } from './plugins/validation/index.js';
export { ephemeralPlugin } from './plugins/ephemeral/index.js';
export { domainsPlugin, Domain, type DomainModel, type RelationDoc, type RelationKind } from './plugins/domains/index.js';
export { triggersPlugin, addTrigger, removeTrigger, registerTriggerHandler, type TriggersApi, setTriggerEnabled, TRIGGER_HANDLERS, TRIGGER_FAILURE_CLASS, TRIGGER_FAILED_EVENT, type TriggerHandler, type TriggerContext, type TriggerModel, type TriggerFailedEvent, type TriggersOptions } from './plugins/triggers/index.js';
export { jobsPlugin, registerJobHandler, JOB_HANDLERS, type JobsApi, type JobContext, type JobHandler, type JobsOptions } from './plugins/jobs/index.js';
export { retentionPlugin } from './plugins/retention/index.js';
export { encryptionPlugin, type EncryptionApi, type KeyringApi, type ScopeBundle, type Recipient, type Opener, type RotationProgress } from './plugins/encryption/index.js';
export { syncPlugin, type SyncApi, type SyncOptions, type SyncHandle } from './plugins/sync/index.js';
