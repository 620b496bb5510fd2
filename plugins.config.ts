import type { PluginEntry } from './kernel/plugin.js';
import { domainsPlugin } from './plugins/domains/index.js';
import { ephemeralPlugin } from './plugins/ephemeral/index.js';
import { validationPlugin } from './plugins/validation/index.js';

/**
 * Presets: the plugin lists a stack is opened with. An entry may be a plugin, a
 * [plugin, options] pair, or `false` to switch one off inline.
 */
export const browser: readonly PluginEntry[] = [validationPlugin, ephemeralPlugin, domainsPlugin];

/** The server node runs everything the browser does (it validates what it receives) and more. */
export const server: readonly PluginEntry[] = [...browser];

export const presets = { browser, server } as const;
