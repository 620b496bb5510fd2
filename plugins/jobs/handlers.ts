import { asValue } from 'awilix';
import { DocstackError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/plugin.js';
import type { HandlerOptions, JobHandler } from './types.js';

/** Container key of the stack's job handler registry (a `JobHandlerRegistry`). */
export const JOB_HANDLERS = 'jobHandlers';

/** Handler names: letters, digits and `_ . : -`, e.g. `retention.sweep`. */
const HANDLER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

export interface RegisteredHandler extends HandlerOptions {
  name: string;
  run: JobHandler;
}

/**
 * The handlers a stack can run, by name. A stored job only names its handler: the code is
 * registered by a plugin in its setup, so nothing stored is ever executed as code.
 * One registry per stack (in its container), never a module-level map.
 */
export class JobHandlerRegistry {
  private readonly byName = new Map<string, RegisteredHandler>();

  register(name: string, handler: JobHandler, options: HandlerOptions = {}): void {
    if (typeof name !== 'string' || !HANDLER_NAME.test(name)) {
      throw new DocstackError('DS_JOB_INVALID', `A job handler name holds letters, digits and "_ . : -" (got ${JSON.stringify(name)}).`, { path: 'handler' });
    }
    if (typeof handler !== 'function') {
      throw new DocstackError('DS_JOB_INVALID', `The job handler "${name}" must be a function.`, { path: 'handler' });
    }
    if (this.byName.has(name)) {
      throw new DocstackError('DS_PLUGIN_DUPLICATE', `A job handler named "${name}" is already registered; two plugins cannot both register it.`, {
        details: { handler: name },
      });
    }
    this.byName.set(name, { ...options, name, run: handler });
  }

  get(name: string): RegisteredHandler | undefined {
    return this.byName.get(name);
  }

  /** The handler, or DS_JOB_HANDLER_UNKNOWN. */
  require(name: string, path = 'handler'): RegisteredHandler {
    const handler = this.byName.get(name);
    if (!handler) {
      throw new DocstackError('DS_JOB_HANDLER_UNKNOWN', `No plugin registered a job handler named ${JSON.stringify(name)}.`, {
        path,
        details: { handler: name, registered: this.names() },
      });
    }
    return handler;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}

export function createHandlerRegistry(kernel: Kernel): JobHandlerRegistry {
  const registry = new JobHandlerRegistry();
  kernel.container.register(JOB_HANDLERS, asValue(registry));
  return registry;
}

/**
 * Registers a job handler on the stack being set up. Call it from the setup of a plugin that
 * `requires: ['jobs']` (so the jobs plugin, and its registry, is set up first):
 *
 * ```ts
 * definePlugin({ name: 'greeter', requires: ['jobs'], setup(kernel) {
 *   registerJobHandler(kernel, 'greet', async ({ params }) => ({ text: `hello ${params.who}` }));
 * } });
 * ```
 */
export function registerJobHandler(kernel: Pick<Kernel, 'container'>, name: string, handler: JobHandler, options: HandlerOptions = {}): void {
  if (!kernel.container.hasRegistration(JOB_HANDLERS)) {
    throw new DocstackError('DS_PLUGIN_MISSING_REQUIREMENT', `Registering the job handler "${name}" needs the jobs plugin: add it to the stack and "requires: ['jobs']" to your plugin.`, {
      details: { handler: name, requires: 'jobs' },
    });
  }
  kernel.container.resolve<JobHandlerRegistry>(JOB_HANDLERS).register(name, handler, options);
}
