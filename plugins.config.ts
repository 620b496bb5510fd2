import { withPlugin, withoutPlugins } from './kernel/plugin.js';
import type { StackWith } from './engine/create-stack.js';
import { authorityPlugin } from './plugins/authority/index.js';
import { domainsPlugin } from './plugins/domains/index.js';
import { encryptionPlugin } from './plugins/encryption/index.js';
import { ephemeralPlugin } from './plugins/ephemeral/index.js';
import { jobsPlugin } from './plugins/jobs/index.js';
import { patchesPlugin } from './plugins/patches/index.js';
import { retentionPlugin } from './plugins/retention/index.js';
import { sqlPlugin } from './plugins/sql/index.js';
import { syncPlugin } from './plugins/sync/index.js';
import { transactionsPlugin } from './plugins/transactions/index.js';
import { triggersPlugin } from './plugins/triggers/index.js';
import { validationPlugin } from './plugins/validation/index.js';

/**
 * docstack/presets: the built-in plugins (each also at `docstack/plugins/<name>`) and the presets.
 * Importing a preset leaves the plugins it does not name out of a bundle ("sideEffects": false).
 */
export { validationPlugin } from './plugins/validation/index.js';
export { ephemeralPlugin } from './plugins/ephemeral/index.js';
export { domainsPlugin, Domain, type DomainModel, type RelationDoc, type RelationKind } from './plugins/domains/index.js';
export { triggersPlugin, addTrigger, removeTrigger, registerTriggerHandler, type TriggersApi, setTriggerEnabled, TRIGGER_HANDLERS, TRIGGER_FAILURE_CLASS, TRIGGER_FAILED_EVENT, type TriggerHandler, type TriggerContext, type TriggerModel, type TriggerFailedEvent, type TriggersOptions } from './plugins/triggers/index.js';
export { jobsPlugin, registerJobHandler, JOB_HANDLERS, type JobsApi, type JobContext, type JobHandler, type HandlerOptions as JobHandlerOptions, type JobsOptions } from './plugins/jobs/index.js';
export { retentionPlugin } from './plugins/retention/index.js';
export { encryptionPlugin, isSealed, isTravellingKeyringId, KEYRING_CLASS, type EncryptionApi, type KeyringApi, type ScopeBundle, type Recipient, type Opener, type RotationProgress } from './plugins/encryption/index.js';
export { transactionsPlugin, DEFAULT_RETRIES, type TransactionsApi, type Transaction, type TransactionOptions, type RecoveryReport } from './plugins/transactions/index.js';
export { patchesPlugin, registerPatchHandler, PATCH_HANDLERS, PATCH_CLASS, patchId, compareVersions, PatchesApi, type Patch, type PatchChange, type PatchDoc, type PatchHandler, type PatchHandlerContext, type PendingPatch, type AppliedPatch, type FailedTarget, type PatchProgressEvent, type PatchFailedEvent } from './plugins/patches/index.js';
export { syncPlugin, SYNC_ERRORS, SyncLoginError, type SyncApi, type SyncOptions, type SyncHandle, type SyncStatus, type SyncResult, type SyncRefusal, type SyncState, type SyncDirection, type HeldDocument, type SyncPolicy, type DeniedPush } from './plugins/sync/index.js';
export { authorityPlugin, isPending, pendingOf, PENDING_FIELD, type AuthorityApi, type AuthorityOptions, type ClaimAnswer, type ConnectOptions, type NumberBlock } from './plugins/authority/index.js';

/**
 * Presets: the plugin lists a stack is opened with. An entry may be a plugin, a
 * [plugin, options] pair, or `false` to switch one off inline. Each list is written out (no
 * `...spread`): a bundler keeps a spread as a possible side effect, and with it every plugin of
 * every preset, even in an app that imports `slim` alone.
 */

/**
 * The smallest useful stack: the engine and the validation plugin (defaults, types, foreign
 * keys). It leaves out ephemeral classes, domains, triggers, encryption, transactions, jobs,
 * retention, sync, patches, authority and SQL: no `stack.sync`, `stack.unlock`,
 * `stack.transaction`… A browser bundle of createStack with this preset is measured in
 * test/package/slim-bundle.test.ts (68.6 kB gzipped without the engine's ingest, against 139 kB for `browser`;
 * docs/browser.md#the-slim-preset). In a page: `docstack/slim` (dist/browser/docstack-slim.js).
 */
export const slim = [validationPlugin] as const;

/**
 * In a browser app: jobs whose platform is client (or any) run here; `stack.sync` replicates with
 * a node. No SQL: the browser bundle stays within its size budget without alasql; an app that
 * wants `stack.sql` opens with `browserWithSql` (or adds `sqlPlugin` from `docstack/sql`).
 */
export const browser = [
  validationPlugin, ephemeralPlugin, domainsPlugin, triggersPlugin, encryptionPlugin, transactionsPlugin,
  [jobsPlugin, { platform: 'client' }], retentionPlugin, syncPlugin, patchesPlugin, authorityPlugin,
] as const;

/** The browser preset plus `stack.sql` (alasql is loaded on the first statement). */
export const browserWithSql = [
  validationPlugin, ephemeralPlugin, domainsPlugin, triggersPlugin, encryptionPlugin, transactionsPlugin,
  [jobsPlugin, { platform: 'client' }], retentionPlugin, syncPlugin, patchesPlugin, authorityPlugin, sqlPlugin,
] as const;

/**
 * The server node runs the same engine (it validates what it receives) with server jobs. It
 * loads the encryption plugin but is never unlocked: it stores and serves ciphertext only.
 */
export const server = [
  validationPlugin, ephemeralPlugin, domainsPlugin, triggersPlugin, encryptionPlugin, transactionsPlugin,
  [jobsPlugin, { platform: 'server' }], retentionPlugin, syncPlugin, patchesPlugin, sqlPlugin, [authorityPlugin, { authority: true }],
] as const;

export const presets = { slim, browser, browserWithSql, server } as const;

/** A stack opened with the slim preset: the engine's members only. */
export type SlimStack = StackWith<typeof slim>;
/** A stack opened with the browser preset: `stack.sync`, `stack.jobs`, `stack.unlock`… typed. */
export type BrowserStack = StackWith<typeof browser>;
/** A stack opened with the browser preset plus SQL. */
export type BrowserSqlStack = StackWith<typeof browserWithSql>;
/** A stack opened with the server preset. */
export type ServerStack = StackWith<typeof server>;

export { withPlugin, withoutPlugins };

/** What a server bounds remote statements with (docs/sql.md#cost-limits), for the node's settings. */
export { compileLinear, loadAlasql, REMOTE_BUDGET, type SqlBudget, type SqlRunOptions } from './plugins/sql/index.js';
