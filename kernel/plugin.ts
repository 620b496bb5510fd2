import type { AwilixContainer } from 'awilix';
import { DocstackError } from './errors.js';
import type { KernelHooks } from './hooks.js';
import type { ClientStack } from './stack.js';

/** What a plugin's setup receives. */
export interface Kernel {
  readonly hooks: KernelHooks;
  /** The stack's awilix container (PROXY injection, strict): register services under constant keys. */
  readonly container: AwilixContainer;
  readonly stack: ClientStack;
}

export interface Plugin<Options = any> {
  /** Unique within a stack; also the tap name the plugin uses on hooks. */
  name: string;
  /** Names of plugins that must be present (they are set up first). */
  requires?: string[];
  setup(kernel: Kernel, options: Options): void | Promise<void>;
}

/** A preset entry: a plugin, a plugin with options, or `false` to switch one off inline. */
export type PluginEntry = Plugin | readonly [Plugin, unknown] | false | null | undefined;

/** Identity at runtime; gives plugin authors type checking on the plain object. */
export function definePlugin<Options = undefined>(plugin: Plugin<Options>): Plugin<Options> {
  return plugin;
}

export interface ResolvedPlugin {
  plugin: Plugin;
  options: unknown;
}

/**
 * Normalises a preset into set-up order: `false` entries dropped, duplicates and missing
 * requirements refused, and every plugin after the plugins it requires (stable otherwise).
 */
export function resolvePlugins(entries: readonly PluginEntry[]): ResolvedPlugin[] {
  const byName = new Map<string, ResolvedPlugin>();
  for (const entry of entries) {
    if (!entry) continue;
    const [plugin, options] = Array.isArray(entry) ? entry : [entry as Plugin, undefined];
    if (!plugin || typeof plugin.name !== 'string' || !plugin.name || typeof plugin.setup !== 'function') {
      throw new DocstackError('DS_PLUGIN_INVALID', 'Every plugin needs a non-empty name and a setup function.', {
        details: { plugin: (plugin as Plugin | undefined)?.name },
      });
    }
    if (byName.has(plugin.name)) {
      throw new DocstackError('DS_PLUGIN_DUPLICATE', `The plugin "${plugin.name}" is listed twice.`, {
        details: { plugin: plugin.name },
      });
    }
    byName.set(plugin.name, { plugin, options });
  }
  for (const { plugin } of byName.values()) {
    for (const required of plugin.requires ?? []) {
      if (!byName.has(required)) {
        throw new DocstackError(
          'DS_PLUGIN_MISSING_REQUIREMENT',
          `The plugin "${plugin.name}" requires the plugin "${required}", which is not in the list.`,
          { details: { plugin: plugin.name, requires: required } },
        );
      }
    }
  }
  const ordered: ResolvedPlugin[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (name: string, chain: string[]) => {
    if (placed.has(name)) return;
    if (visiting.has(name)) {
      throw new DocstackError('DS_PLUGIN_MISSING_REQUIREMENT', `Plugins require each other in a cycle: ${[...chain, name].join(' → ')}.`, {
        details: { cycle: [...chain, name] },
      });
    }
    visiting.add(name);
    const resolved = byName.get(name)!;
    for (const required of resolved.plugin.requires ?? []) place(required, [...chain, name]);
    visiting.delete(name);
    placed.add(name);
    ordered.push(resolved);
  };
  for (const name of byName.keys()) place(name, []);
  return ordered;
}
