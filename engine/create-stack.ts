import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { MistypedEntries, Plugin, PluginEntry, PluginMembers } from '../kernel/plugin.js';
import type { StackOptions } from '../kernel/stack.js';
import { ClientStack } from './client-stack.js';

/** A stack opened with the plugins P: ClientStack plus the members those plugins add. */
export type StackWith<P extends readonly PluginEntry[]> = ClientStack & PluginMembers<P>;

/**
 * Opens a stack: storage, plugins (in requirement order), system patches, then onOpen taps.
 * Its type carries the members of the plugins given (`stack.sync` only with the sync plugin).
 */
export async function createStack<const P extends readonly PluginEntry[] = []>(
  options: Omit<StackOptions, 'plugins'> & { plugins?: P },
  // a preset entry whose options do not fit its plugin makes this parameter required: a compile error naming the entry
  ..._mistyped: [MistypedEntries<P>] extends [never] ? [] : [mistypedEntry: MistypedEntries<P>]
): Promise<StackWith<P>> {
  if (!options || typeof options !== 'object') {
    throw KERNEL_ERRORS.stackOptionsInvalid('createStack needs an options object with name and adapter.');
  }
  return (await ClientStack.create(options.name, options)) as StackWith<P>;
}

/**
 * The API of a plugin on a stack, typed by the plugin object; undefined when the stack does not
 * load a plugin of that name. `getApi(stack, jobsPlugin)?.run('nightly')`.
 */
export function getApi<Api>(stack: ClientStack, plugin: Plugin<any, Api, any>): Api | undefined {
  return stack.apiOf(plugin.name) as Api | undefined;
}
