import type { AwilixContainer } from 'awilix';
import { registerErrors, KERNEL_ERRORS, type ErrorFactory } from '../contracts/errors.js';
import type { AttributeTypeDefinition, ConfigKeyDefinition } from '../contracts/attribute-types.js';
import type { StackPort } from '../contracts/stack-port.js';
import type { WritePart } from '../contracts/unit-of-work.js';
import type { Storage } from '../storage/facade.js';
import type { KernelHooks } from './hooks.js';
import type { SystemPatch } from './patch-types.js';

/** What a plugin's setup receives. */
export interface Kernel {
  readonly hooks: KernelHooks;
  /** The stack's awilix container (PROXY injection, strict): register services under constant keys. */
  readonly container: AwilixContainer;
  readonly stack: StackPort;
  /**
   * The store, narrowed (also `stack.storage`): reads by id and range, the engine's own
   * documents (locks, index entries, checkpoints), replication. Documents of user classes are
   * written through the pipeline, never here.
   */
  readonly storage: Storage;
  /**
   * The API of a plugin this one lists in `requires` or `optional`: undefined when an optional
   * one is absent. Asking for a plugin not listed is a DS_PLUGIN_MISSING_REQUIREMENT: a plugin's
   * dependencies are what it declares, nothing else.
   */
  use<Api>(plugin: Plugin<any, Api, any, any>): Api | undefined;
  /** Defines an attribute type this plugin owns (the domains plugin's `reference`). */
  defineAttribute(definition: AttributeTypeDefinition): void;
  /** Defines a config key every attribute type accepts (the encryption plugin's `encrypted`). */
  defineConfigKey(definition: ConfigKeyDefinition): void;
  /**
   * Joins every pipeline write from now on (the unit of work, contracts/unit-of-work.ts): the
   * part's documents go into the write's own bulkDocs calls and are undone with it.
   */
  addWritePart(part: WritePart): void;
  /**
   * Declares a `~` field this plugin stamps on documents (`~updatedBy`): validation accepts it,
   * and a caller cannot set it (createDoc, updateDoc, a transaction's or a statement's writes:
   * DS_DOC_PROTECTED_FIELD, as for `~tx`) — the plugin's own beforeValidate tap does. A name
   * that is not `~` and a letter, or that the engine or another plugin has, is DS_PLUGIN_INVALID.
   */
  defineSystemField(name: `~${string}`): void;
  /**
   * The hooks a plugin this one lists in `requires` or `optional` publishes (its `hooks`), to
   * tap: undefined when an optional one is absent; an unlisted one is DS_PLUGIN_MISSING_REQUIREMENT.
   */
  hooksOf<H extends object>(plugin: Plugin<any, any, any, H>): Readonly<H> | undefined;
}

/** A plugin's setup context: the kernel's, plus the hooks the plugin publishes (its `hooks`). */
export type PluginKernel<Hooks extends object = {}> = Kernel & { readonly ownHooks: Readonly<Hooks> };

/** What the layer that opens a stack adds to each plugin's setup context (the engine: attribute types). */
export type KernelExtension = (plugin: Plugin) => Pick<Kernel, 'defineAttribute' | 'defineConfigKey'>;

/**
 * A plugin: a name, its dependencies, its error codes and a setup that taps hooks and returns
 * the plugin's API (read with `getApi(stack, plugin)`). `members` lists what the plugin adds to
 * the stack object itself (the specification's `stack.sync`, `stack.unlock`…); the stack type
 * `createStack` returns carries exactly the members of the plugins it was given.
 */
export interface Plugin<Options = any, Api = unknown, Members extends object = {}, Hooks extends object = {}> {
  /** Unique within a stack; also the tap name the plugin uses on hooks. */
  name: string;
  /** Names of plugins that must be present (they are set up first). */
  requires?: readonly string[];
  /** Names of plugins used when present (set up first when they are). */
  optional?: readonly string[];
  /** The error codes this plugin throws (made with createError): registered and documented. */
  errors?: readonly ErrorFactory[];
  /**
   * System patches this plugin owns (its meta-classes, its system data): applied once per store
   * after the kernel's, in plugin order, recorded like them. Ids are `<plugin name>/NNNN-what`.
   */
  patches?: readonly SystemPatch[];
  /**
   * Hooks of the plugin's own (tapable hooks, made fresh per stack): the plugin calls them
   * (`kernel.ownHooks`), the plugins that list it tap them (`kernel.hooksOf(plugin)`). Frozen, like the kernel's.
   */
  hooks?(): Hooks;
  setup(kernel: PluginKernel<Hooks>, options: Options): Api | Promise<Api>;
  /** Members added to the stack object, built from the API setup returned. */
  members?(api: Api): Members;
}

/** A preset entry: a plugin, a plugin with options, or `false` to switch one off inline. */
export type PluginEntry = Plugin | readonly [Plugin, unknown] | false | null | undefined;

/**
 * The `[plugin, options]` entries of a preset whose options do not fit the plugin's own Options
 * type (a misspelt or mistyped option), or never: createStack asks for a second argument naming
 * them when there is one, so such a preset does not compile.
 */
export type MistypedEntries<P extends readonly PluginEntry[]> = {
  [K in keyof P]: P[K] extends readonly [Plugin<infer O, any, any>, infer X] ? ([X] extends [O] ? never : P[K]) : never;
}[number];

/**
 * Identity at runtime (it checks the patch ids); types the plain object. The plugin's error
 * codes are registered when a stack is set up with it (resolvePlugins), not here: defining a
 * plugin has no effect a bundle must keep, so an unused plugin is left out of it.
 */
export function definePlugin<Options = undefined, Api = void, Members extends object = {}, Hooks extends object = {}>(
  plugin: Plugin<Options, Api, Members, Hooks>,
): Plugin<Options, Api, Members, Hooks> {
  for (const patch of plugin.patches ?? []) {
    if (!patch.id.startsWith(`${plugin.name}/`)) {
      throw KERNEL_ERRORS.pluginInvalid(`The patch "${patch.id}" of ${plugin.name} must have an id starting with "${plugin.name}/".`, {
        details: { plugin: plugin.name, patch: patch.id },
      });
    }
  }
  return plugin;
}

type EntryPlugin<E> = E extends readonly [infer P, unknown] ? P : E;
type MembersOfPlugin<P> = P extends Plugin<any, any, infer M, any> ? M : {};
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The stack members the plugins of a preset add (`stack.sync`, `stack.jobs`…). */
export type PluginMembers<P extends readonly PluginEntry[]> = UnionToIntersection<MembersOfPlugin<EntryPlugin<P[number]>>>;

/** The API of a plugin type. */
export type ApiOf<P> = P extends Plugin<any, infer A, any, any> ? A : never;

export interface ResolvedPlugin {
  plugin: Plugin;
  options: unknown;
}

/**
 * Normalises a preset into set-up order: `false` entries dropped, duplicates and missing
 * requirements refused, and every plugin after the plugins it requires or uses (stable otherwise).
 * Registers each plugin's error codes (a code another owner holds is refused).
 */
export function resolvePlugins(entries: readonly PluginEntry[]): ResolvedPlugin[] {
  const byName = new Map<string, ResolvedPlugin>();
  for (const entry of entries) {
    if (!entry) continue;
    const [plugin, options] = Array.isArray(entry) ? entry : [entry as Plugin, undefined];
    if (!plugin || typeof plugin.name !== 'string' || !plugin.name || typeof plugin.setup !== 'function') {
      throw KERNEL_ERRORS.pluginInvalid('Every plugin needs a non-empty name and a setup function.', {
        details: { plugin: (plugin as Plugin | undefined)?.name },
      });
    }
    if (byName.has(plugin.name)) {
      throw KERNEL_ERRORS.pluginDuplicate(`The plugin "${plugin.name}" is listed twice; to change a preset plugin's options use withPlugin(preset, plugin, options).`, {
        details: { plugin: plugin.name },
      });
    }
    byName.set(plugin.name, { plugin, options });
  }
  for (const { plugin } of byName.values()) if (plugin.errors) registerErrors(plugin.errors, plugin.name);
  for (const { plugin } of byName.values()) {
    for (const required of plugin.requires ?? []) {
      if (!byName.has(required)) {
        throw KERNEL_ERRORS.pluginMissingRequirement(
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
      throw KERNEL_ERRORS.pluginMissingRequirement(`Plugins require each other in a cycle: ${[...chain, name].join(' → ')}.`, {
        details: { cycle: [...chain, name] },
      });
    }
    visiting.add(name);
    const resolved = byName.get(name)!;
    const before = [...(resolved.plugin.requires ?? []), ...(resolved.plugin.optional ?? []).filter((n) => byName.has(n))];
    for (const required of before) place(required, [...chain, name]);
    visiting.delete(name);
    placed.add(name);
    ordered.push(resolved);
  };
  for (const name of byName.keys()) place(name, []);
  return ordered;
}

/** What the stack keeps per plugin for the setup contexts: APIs, published hooks, owned fields. */
export interface PluginRegistry {
  apiOf(name: string): unknown;
  hooksOf(name: string): object | undefined;
  defineSystemField(name: string, plugin: string): void;
}

/** The setup context of one plugin: `use` and `hooksOf` limited to what it declares. */
export function kernelFor(
  plugin: Plugin,
  base: Pick<Kernel, 'hooks' | 'container' | 'stack' | 'storage' | 'addWritePart'>,
  extend: KernelExtension,
  registry: PluginRegistry,
): PluginKernel<object> {
  const declared = new Set([...(plugin.requires ?? []), ...(plugin.optional ?? [])]);
  const listed = (other: Plugin<any, any, any, any>, what: string) => {
    if (!declared.has(other.name)) {
      throw KERNEL_ERRORS.pluginMissingRequirement(`The plugin "${plugin.name}" ${what} "${other.name}" without listing it in requires or optional.`, {
        details: { plugin: plugin.name, requires: other.name },
      });
    }
    return other.name;
  };
  return {
    ...base,
    ...extend(plugin),
    ownHooks: registry.hooksOf(plugin.name) ?? {},
    use: <Api>(other: Plugin<any, Api, any, any>) => registry.apiOf(listed(other, 'uses')) as Api | undefined,
    hooksOf: <H extends object>(other: Plugin<any, any, any, H>) => registry.hooksOf(listed(other, 'taps the hooks of')) as Readonly<H> | undefined,
    defineSystemField: (name) => registry.defineSystemField(name, plugin.name),
  };
}

/**
 * Replaces (or adds) a plugin's entry in a preset, keeping its place: the way to change the
 * options of a preset plugin (listing it a second time is DS_PLUGIN_DUPLICATE).
 */
export function withPlugin<const P extends readonly PluginEntry[], Q extends Plugin<any, any, any, any>>(
  preset: P,
  plugin: Q,
  options?: Q extends Plugin<infer O, any, any, any> ? O : never,
): P {
  const entry = (options === undefined ? plugin : [plugin, options]) as PluginEntry;
  const nameOf = (e: PluginEntry) => (e ? (Array.isArray(e) ? (e[0] as Plugin).name : (e as Plugin).name) : undefined);
  const index = preset.findIndex((e) => nameOf(e) === plugin.name);
  const next = [...preset];
  if (index >= 0) next[index] = entry;
  else next.push(entry);
  return next as unknown as P;
}

/** A preset without the named plugins. */
export function withoutPlugins<const P extends readonly PluginEntry[]>(preset: P, ...names: string[]): PluginEntry[] {
  return preset.filter((e) => e && !names.includes(Array.isArray(e) ? (e[0] as Plugin).name : (e as Plugin).name));
}
