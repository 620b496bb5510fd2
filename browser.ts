/**
 * docstack for the browser: the engine (everything `docstack` exports) and the browser preset,
 * bundled by `npm run build` into dist/browser/docstack.js — ESM, IndexedDB storage, no Node
 * built-ins. `import { createStack, browser } from 'docstack/browser'`; under a bundler's
 * `browser` condition `docstack` and `docstack/presets` resolve to the same file (one copy of
 * the engine). SQL is an optional import (browser-sql.ts → dist/browser/docstack-sql.js,
 * `docstack/sql` under the browser condition): the engine's code is shared between the two
 * files (one chunk), so a page that loads both holds one engine.
 */
export * from './index.js';
// the plugins of the browser preset (`docstack` itself exports the engine only)
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
export { slim, browser, withPlugin, withoutPlugins, type SlimStack, type BrowserStack } from './plugins.config.js';
