import { withPlugin, withoutPlugins } from './kernel/plugin.js';
import type { StackWith } from './engine/client-stack.js';
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
 * Presets: the plugin lists a stack is opened with. An entry may be a plugin, a
 * [plugin, options] pair, or `false` to switch one off inline.
 */
const common = [validationPlugin, ephemeralPlugin, domainsPlugin, triggersPlugin, encryptionPlugin, transactionsPlugin] as const;

/**
 * In a browser app: jobs whose platform is client (or any) run here; `stack.sync` replicates with
 * a node. No SQL: the browser bundle stays within its size budget without alasql; an app that
 * wants `stack.sql` opens with `browserWithSql` (or adds `sqlPlugin` from `docstack/sql`).
 */
export const browser = [...common, [jobsPlugin, { platform: 'client' }], retentionPlugin, syncPlugin, patchesPlugin, authorityPlugin] as const;

/** The browser preset plus `stack.sql` (alasql is loaded on the first statement). */
export const browserWithSql = [...browser, sqlPlugin] as const;

/**
 * The server node runs the same engine (it validates what it receives) with server jobs. It
 * loads the encryption plugin but is never unlocked: it stores and serves ciphertext only.
 */
export const server = [...common, [jobsPlugin, { platform: 'server' }], retentionPlugin, syncPlugin, patchesPlugin, sqlPlugin, [authorityPlugin, { authority: true }]] as const;

export const presets = { browser, browserWithSql, server } as const;

/** A stack opened with the browser preset: `stack.sync`, `stack.jobs`, `stack.unlock`… typed. */
export type BrowserStack = StackWith<typeof browser>;
/** A stack opened with the browser preset plus SQL. */
export type BrowserSqlStack = StackWith<typeof browserWithSql>;
/** A stack opened with the server preset. */
export type ServerStack = StackWith<typeof server>;

export { withPlugin, withoutPlugins };

/** What a server bounds remote statements with (docs/sql.md#cost-limits), for the node's settings. */
export { compileLinear, loadAlasql, REMOTE_BUDGET, type SqlBudget, type SqlRunOptions } from './plugins/sql/index.js';
