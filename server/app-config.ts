import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Express, RequestHandler } from 'express';
import { type ClientStack, type ConflictHandler, definePlugin, type PluginEntry } from '../index.js';
import { registerJobHandler, registerTriggerHandler, type JobHandler, type JobHandlerOptions, type TriggerHandler } from '../plugins.config.js';
import { SERVER_ERRORS } from './errors-codes.js';

/** What an app's routes get besides the Express application. */
export interface AppRouteTools {
  /** the session check of `/api/private/*`: put it before a route that needs a logged-in caller */
  requireSession: RequestHandler;
  /** the node's default stack (throws DS_STACK_CLOSED before the node is ready) */
  stack: () => ClientStack;
}

/** Mounts the app's own routes, after the node's (which keep their paths) and before the 404. */
export type AppRoutes = (app: Express, tools: AppRouteTools) => void;

/** A job handler, or one with its options (`{ handler, timeoutMs… }`). */
export type AppJobHandler = JobHandler | ({ handler: JobHandler } & JobHandlerOptions);

/**
 * The default export of the app's configuration module (DOCSTACK_CONFIG): what the stock node
 * (`npm start`, `docstack start`) adds to the server preset. Every part is optional.
 */
export interface AppConfig {
  /** more plugins, after the server preset's (also on every tenant stack) */
  plugins?: readonly PluginEntry[];
  /** trigger handlers by name (`registerTriggerHandler` on each stack the node opens) */
  triggers?: Readonly<Record<string, TriggerHandler>>;
  /** job handlers by name (`registerJobHandler`) */
  jobs?: Readonly<Record<string, AppJobHandler>>;
  /** conflict handlers by name, for classes whose policy names them (`stack.registerConflictHandler`) */
  conflicts?: Readonly<Record<string, ConflictHandler>>;
  /** the app's HTTP routes */
  routes?: AppRoutes;
}

/** Typed identity for a configuration module: `export default defineConfig({ … })`. */
export function defineConfig(config: AppConfig): AppConfig {
  return config;
}

const KEYS = ['plugins', 'triggers', 'jobs', 'conflicts', 'routes'] as const;

function invalid(file: string, message: string, path = 'DOCSTACK_CONFIG'): never {
  throw SERVER_ERRORS.serverConfigInvalid(`DOCSTACK_CONFIG (${file}): ${message}`, { path });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkHandlers(file: string, config: Record<string, unknown>, key: 'triggers' | 'jobs' | 'conflicts'): void {
  const handlers = config[key];
  if (handlers === undefined) return;
  if (!isObject(handlers)) invalid(file, `"${key}" must be an object of handlers by name.`, key);
  for (const [name, handler] of Object.entries(handlers)) {
    const fn = key === 'jobs' && isObject(handler) ? handler.handler : handler;
    if (typeof fn !== 'function') invalid(file, `"${key}.${name}" must be a function${key === 'jobs' ? ' (or { handler, …options })' : ''}.`, `${key}.${name}`);
  }
}

/** Refuses a module whose default export is not an AppConfig, naming the part that is wrong. */
export function checkAppConfig(value: unknown, file: string): AppConfig {
  if (!isObject(value)) invalid(file, 'the module must export an object as its default export (export default { triggers, jobs, conflicts, plugins, routes }).');
  const unknown = Object.keys(value).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) invalid(file, `unknown part${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; expected ${KEYS.join(', ')}.`, unknown[0]);
  if (value.plugins !== undefined && !Array.isArray(value.plugins)) invalid(file, '"plugins" must be an array of plugins (or [plugin, options] pairs).', 'plugins');
  for (const key of ['triggers', 'jobs', 'conflicts'] as const) checkHandlers(file, value, key);
  if (value.routes !== undefined && typeof value.routes !== 'function') invalid(file, '"routes" must be a function (app, { requireSession, stack }) => void.', 'routes');
  return value as AppConfig;
}

/**
 * Imports the configuration module at `path` (relative to `cwd`) and checks it. A file that is
 * missing or fails to load is refused with the loader's message (DS_SERVER_CONFIG_INVALID).
 */
export async function loadAppConfig(path: string, cwd = process.cwd()): Promise<AppConfig> {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(file) ? 'no such file' : (err as Error).message;
    invalid(file, `the module cannot be loaded: ${reason.split('\n')[0]}`);
  }
  if (!('default' in loaded)) invalid(file, 'the module has no default export (export default { triggers, jobs, conflicts, plugins, routes }).');
  return checkAppConfig(loaded.default, file);
}

/**
 * The plugins the node's stacks load: the preset, the app's plugins, and one plugin that
 * registers the app's handlers on every stack (the default one and each tenant's).
 */
export function appPlugins(preset: readonly PluginEntry[], config: AppConfig): PluginEntry[] {
  const { triggers = {}, jobs = {}, conflicts = {} } = config;
  const handlers = Object.keys(triggers).length + Object.keys(jobs).length + Object.keys(conflicts).length;
  const plugins = [...preset, ...(config.plugins ?? [])];
  if (handlers === 0) return plugins;
  const requires = [...(Object.keys(triggers).length > 0 ? ['triggers'] : []), ...(Object.keys(jobs).length > 0 ? ['jobs'] : [])];
  const appHandlers = definePlugin({
    name: 'app-handlers',
    requires,
    setup(kernel) {
      for (const [name, handler] of Object.entries(triggers)) registerTriggerHandler(kernel, name, handler);
      for (const [name, entry] of Object.entries(jobs)) {
        if (typeof entry === 'function') registerJobHandler(kernel, name, entry);
        else {
          const { handler, ...options } = entry;
          registerJobHandler(kernel, name, handler, options);
        }
      }
      for (const [name, handler] of Object.entries(conflicts)) kernel.stack.registerConflictHandler(name, handler);
    },
  });
  return [...plugins, appHandlers];
}
