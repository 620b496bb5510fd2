import type { PluginEntry } from './kernel/plugin.js';
import { domainsPlugin } from './plugins/domains/index.js';
import { encryptionPlugin } from './plugins/encryption/index.js';
import { ephemeralPlugin } from './plugins/ephemeral/index.js';
import { jobsPlugin } from './plugins/jobs/index.js';
import { retentionPlugin } from './plugins/retention/index.js';
import { syncPlugin } from './plugins/sync/index.js';
import { triggersPlugin } from './plugins/triggers/index.js';
import { validationPlugin } from './plugins/validation/index.js';

/**
 * Presets: the plugin lists a stack is opened with. An entry may be a plugin, a
 * [plugin, options] pair, or `false` to switch one off inline.
 */
const common: readonly PluginEntry[] = [validationPlugin, ephemeralPlugin, domainsPlugin, triggersPlugin, encryptionPlugin];

/** In a browser app: jobs whose platform is client (or any) run here; `stack.sync` replicates with a node. */
export const browser: readonly PluginEntry[] = [...common, [jobsPlugin, { platform: 'client' }], retentionPlugin, syncPlugin];

/**
 * The server node runs the same engine (it validates what it receives) with server jobs. It
 * loads the encryption plugin but is never unlocked: it stores and serves ciphertext only.
 */
export const server: readonly PluginEntry[] = [...common, [jobsPlugin, { platform: 'server' }], retentionPlugin, syncPlugin];

export const presets = { browser, server } as const;
